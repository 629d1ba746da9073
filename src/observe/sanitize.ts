// Text that comes from clusters (condition messages, descriptions, object names) is data, never
// markup or a terminal command: control characters and ANSI escapes are removed, invisible and
// bidirectional formatting characters too, whitespace is collapsed to single spaces, and the result
// is capped (hostile-inputs H68; Flux trims condition messages the same way). Pure.

/** Longest message kept in a status file, ellipsis included. */
export const MAX_MESSAGE_LENGTH = 512;

/** Input beyond this is cut before the expressions below run (a 1 MB message costs nothing). */
const PRE_CUT = 64 * 1024;

// ESC sequences: CSI (ESC [ … final), OSC (ESC ] … BEL or ST), DCS/SOS/PM/APC (ESC P|X|^|_ … ST),
// and two-character escapes (ESC followed by one character of @-Z, \, ], ^, _ or others).
const ANSI =
  /\u001b(?:\[[0-?]*[ -/]*[@-~]?|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[PX^_][^\u001b]*(?:\u001b\\)?|[\s\S]?)|\u009b[0-?]*[ -/]*[@-~]?/g;
// C0 and C1 controls and DEL, except the whitespace controls that collapse below.
const CONTROL = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/g;
// Zero-width and bidirectional formatting characters (Trojan Source), the BOM, interlinear annotations.
const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb]/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * One line of plain text: anything not a string becomes '' (numbers and booleans their decimal
 * form), escapes and controls are removed, whitespace collapsed, and the text capped at `max`
 * code points with a trailing ellipsis.
 */
export function sanitizeMessage(value: unknown, max = MAX_MESSAGE_LENGTH): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number' || typeof value === 'boolean') text = String(value);
  else return '';
  let cut = false;
  if (text.length > PRE_CUT) {
    text = text.slice(0, PRE_CUT);
    cut = true;
  }
  text = text
    .replace(ANSI, '')
    .replace(CONTROL, '')
    .replace(INVISIBLE, '')
    .replace(LONE_SURROGATE, '\ufffd')
    .replace(/\s+/g, ' ')
    .trim();
  return capCodePoints(text, max, cut);
}

function capCodePoints(text: string, max: number, forceEllipsis: boolean): string {
  if (!forceEllipsis && text.length <= max) return text; // UTF-16 length ≥ code points
  const points = Array.from(text);
  if (!forceEllipsis && points.length <= max) return text;
  return points.slice(0, Math.max(0, max - 1)).join('').trimEnd() + '…';
}

/**
 * Markdown table cell text: sanitised, then HTML and Markdown syntax escaped so that a message
 * renders as the literal text it is (no links, no emphasis, no math, no raw HTML, no cell breaks).
 */
export function markdownCell(value: unknown, max = MAX_MESSAGE_LENGTH): string {
  return sanitizeMessage(value, max)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_[\]|~$]/g, (c) => `\\${c}`);
}
