// The shape of a Kubernetes object as the status reporter reads it from a cluster or a dump. It
// lives here, below both src/status/ and src/extensions/, because extensions' status hooks judge
// objects of their own kinds without importing the status pipeline. Only what is looked at is typed.

export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly generation?: number;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly spec?: unknown;
  readonly status?: unknown;
}
