// The oracle's wire protocol, for the TypeScript side (client, judge, tests). The Go programs in
// test/oracle/admission and test/oracle/kim speak it; docs/testing.md ("The upstream oracle") has the
// same description for people.
//
// Transport: JSON lines. One request object per line on the program's stdin; exactly one response
// object per request line on its stdout, in request order, flushed per line. A response echoes the
// request's `id` (any JSON value) and `op`. A request that cannot be served (not JSON, unknown op,
// malformed fields, an op whose upstream module is unavailable) is answered with `error` set and the
// program keeps reading; a verdict (accepted or refused) is never an `error`. The program exits 0
// when stdin closes. Four programs serve the ops (their dependency graphs cannot be one module):
//   admission: versions, registry-cache/validate, registry-cache/validate-config,
//              shoot/validate-resources
//   kim:       versions, kim/registry-cache
//   lakom:     versions, lakom/validate
//   falco:     versions, falco/validate (built only where the Falco snapshot is; without it the
//              client answers the op with an `error` starting "unavailable:")
// The client (oracle.ts) starts them and routes each op to its program.

/** A Kubernetes object as JSON (a Shoot, a Runtime, a Secret, ...). */
export type KubeObject = Record<string, unknown>;

/** One field error as apimachinery's field.Error carries it; `error` is its Error() text. */
export interface FieldError {
  field: string;
  type: string;
  badValue?: unknown;
  detail: string;
  error: string;
}

export interface Requests {
  /** The upstream module versions compiled into each program. */
  versions: Record<string, never>;
  /**
   * Registry-cache Shoot admission: `shoot` (a v1beta1 Shoot, any subset; apiVersion, kind, name and
   * namespace are filled in when missing), or `providerConfig` + `resources` (+ `namespace`), which
   * become a Shoot with one registry-cache entry. The Shoot is decoded strictly, then the extension's
   * Shoot validator runs with a fake client holding `secrets` (v1 Secrets, in the Shoot's namespace
   * unless they name one) and, with `standInSecrets`, a well-formed immutable Secret (two keys,
   * username and password) for every Secret resource left without one. `oldShoot` makes it an UPDATE.
   */
  'registry-cache/validate': {
    shoot?: KubeObject;
    providerConfig?: unknown;
    resources?: unknown[];
    namespace?: string;
    secrets?: KubeObject[];
    standInSecrets?: boolean;
    oldShoot?: KubeObject;
  };
  /** ValidateRegistryConfig alone on one providerConfig (strict decode first), at `fieldPath`
   * (names and indexes, default ["spec","extensions",0,"providerConfig"]). */
  'registry-cache/validate-config': { providerConfig: unknown; fieldPath?: (string | number)[] };
  /** The Shoot decoded strictly, then Gardener's ValidateResources on its spec.resources. */
  'shoot/validate-resources': { shoot: KubeObject };
  /**
   * Falco Shoot admission: the Shoot is decoded strictly, the extension's Shoot mutator runs on the
   * v1beta1 Shoot, then its Shoot validator on the mutated internal Shoot, with the extension's
   * profile manager holding `falcoProfile` (a FalcoProfile object). `now` (RFC 3339) is the instant
   * to judge expiry at (dates are shifted by wall clock - now, as the extension compares with
   * time.Now()). Without a profile, `standInProfile` makes the rendered falcoVersion the one supported
   * version (it is then not judged, and `notes` says so). `otlpLogging` is the admission's
   * --otlp-logging flag (default false, as upstream's).
   */
  'falco/validate': { shoot?: KubeObject; falcoProfile?: KubeObject; now?: string; standInProfile?: boolean; otlpLogging?: boolean };
  /**
   * Lakom Shoot admission: `shoot`, or `providerConfig` + `resources` (one shoot-lakom-service entry);
   * the Shoot is decoded strictly, then the extension's Shoot validator runs with a fake client
   * holding `secrets` and, with `standInSecrets`, a Secret with one valid public key (data key
   * `keys`) for every Secret resource left without one.
   */
  'lakom/validate': { shoot?: KubeObject; providerConfig?: unknown; resources?: unknown[]; secrets?: KubeObject[]; standInSecrets?: boolean };
  /**
   * KIM's patch mapping of `runtime` (a Runtime CR, decoded strictly with KIM's types) on a Shoot that
   * starts as `currentShoot`; with `rendered` (kyma-fleet's Shoot fragment) also the comparison, and
   * then `currentShoot` defaults to `rendered` without the Secrets its registry-cache caches reference.
   */
  'kim/registry-cache': { runtime: KubeObject; currentShoot?: KubeObject; rendered?: KubeObject };
}

export interface Responses {
  versions: { versions: Record<string, string> };
  'registry-cache/validate': {
    accepted: boolean;
    /** Each error as upstream prints it (field errors as `<path>: <type>: <value>: <detail>`). */
    errors?: string[];
    /** `shoot-decode` (the Shoot itself did not decode strictly) or `admission`. */
    refusedBy?: 'shoot-decode' | 'admission';
    /** Set when the webhook would not run (no registry-cache entry, or it is disabled). */
    skipped?: string;
    /** ValidateRegistryConfig's own field errors (without the Secret checks), when the config decodes. */
    fieldErrors?: FieldError[];
    decodeError?: string;
  };
  'registry-cache/validate-config': { fieldErrors: FieldError[]; decodeError?: string };
  'shoot/validate-resources': { accepted: boolean; errors?: string[]; refusedBy?: 'shoot-decode' | 'api-validation' };
  'falco/validate': {
    accepted: boolean;
    /** Each error as upstream prints it (the validator's joined errors one by one). */
    errors?: string[];
    /** `shoot-decode`, `mutator` (the mutating webhook failed, e.g. on strict decoding) or `admission`. */
    refusedBy?: 'shoot-decode' | 'mutator' | 'admission';
    /** Set when the webhooks would not run (no entry, or it is disabled). */
    skipped?: string;
    /** Where the mutator changed the rendered providerConfig (`<path>: rendered X, mutator Y`); empty: nothing. */
    mutations?: string[];
    mutatedProviderConfig?: unknown;
    notes?: string[];
  };
  'lakom/validate': {
    accepted: boolean;
    errors?: string[];
    refusedBy?: 'shoot-decode' | 'admission';
    skipped?: string;
    /** The validator's field errors (empty when it refused while decoding). */
    fieldErrors?: FieldError[];
  };
  'kim/registry-cache': {
    /** False when KIM's types refuse the Runtime (errors say why). */
    accepted: boolean;
    errors?: string[];
    /** The registry-cache entry KIM writes (null: none). */
    extension?: { type: string; disabled?: boolean; providerConfig?: unknown } | null;
    resources?: { name: string; resourceRef: { apiVersion: string; kind: string; name: string } }[];
    /** Cache uid -> the Garden Secret name KIM references for it. */
    secretNames?: Record<string, string>;
    comparison?: KIMComparison;
  };
}

/**
 * KIM's entry against kyma-fleet's, by the name rule: KIM's Secret for the Runtime item with uid U is
 * its copy of the runtime's Secret S the item names; kyma-fleet's cache with U's upstream must
 * reference S, and KIM's name corresponds to S. KIM's names are replaced accordingly, then the
 * providerConfigs must be equal after strict decoding (semantic equality) and spec.resources equal as
 * sets. Details: docs/testing.md, "The name rule".
 */
export interface KIMComparison {
  equal: boolean;
  differences: string[];
  /** Where the providerConfig texts differ although the decoded configs are equal (e.g. 168h0m0s). */
  textDifferences: string[];
  /** KIM's Secret name -> kyma-fleet's. */
  nameMap: Record<string, string>;
}

export type Op = keyof Requests;

/** A response: the op's fields, or `error` when the request could not be served. */
export type Response<O extends Op> = (Responses[O] & { id?: unknown; op: O; error?: undefined }) | { id?: unknown; op: O; error: string };

/** Which program serves an op. */
export const PROGRAM_OF: Record<Op, 'admission' | 'kim' | 'lakom' | 'falco'> = {
  versions: 'admission',
  'registry-cache/validate': 'admission',
  'registry-cache/validate-config': 'admission',
  'shoot/validate-resources': 'admission',
  'falco/validate': 'falco',
  'lakom/validate': 'lakom',
  'kim/registry-cache': 'kim',
};
