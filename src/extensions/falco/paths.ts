// Safety of fleet-relative file references (custom rule files, the FalcoProfile). A reference is
// only ever a key into the files the loader already read; these checks make sure no reference can
// name something outside the fleet folder (H40, H41), before anything looks the path up.

/** Why a file reference is refused; undefined when it is a plain path inside the fleet folder. */
export type PathProblem = 'outside-root' | 'not-plain';

/**
 * Classifies a fleet-relative path:
 * - `outside-root`: absolute (`/x`, `\x`, `C:\x`, `C:/x`), a URL or other `scheme:` (`https://`,
 *   `file://`), home-relative (`~`, `~/x`), or with a `..` segment (either separator);
 * - `not-plain`: inside the fleet folder but not in canonical form: backslashes, empty or `.`
 *   segments, or characters other than letters, digits, `.`, `-` and `_` (also keeps every file
 *   name usable as a ConfigMap key);
 * - undefined: a canonical relative path such as `rules/web.yaml`.
 */
export function classifyFleetPath(path: string): PathProblem | undefined {
  if (path.startsWith('/') || path.startsWith('\\')) return 'outside-root';
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(path)) return 'outside-root'; // C:, https:, file:, ...
  if (path.startsWith('~')) return 'outside-root';
  if (path.split(/[/\\]/).some((seg) => seg === '..')) return 'outside-root';
  if (path.includes('\\')) return 'not-plain';
  const segments = path.split('/');
  if (segments.some((seg) => seg === '' || seg === '.' || !/^[A-Za-z0-9._-]+$/.test(seg))) return 'not-plain';
  return undefined;
}

/** Last segment of a fleet-relative path. */
export function baseName(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? path : path.slice(i + 1);
}
