// Scalars of the fast YAML emitter (./yaml-emitter.ts): when yaml 2.9.1 writes a string plain,
// single-quoted, double-quoted or as a block literal, and how it writes numbers, ported from
// node_modules/yaml/dist/stringify/stringifyString.js and stringifyNumber.js for the emitter's
// options. The YAML 1.1 tag tests are yaml's own regexps; test/render/yaml-emitter.test.ts checks
// they still match the installed yaml.

// ---------------------------------------------------------------------------------------------
// Scalar tests (regexps copied from yaml; see the test that compares them with the installed yaml)

/** stringifyString: control characters and lone surrogates force double quotes. */
const FORCE_DOUBLE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u{D800}-\u{DFFF}]/u;
/** plainString: characters/positions that a plain scalar cannot have. */
const NOT_PLAIN = /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;
/** stringifyString containsDocumentMarker. */
const DOCUMENT_MARKER = /^(%|---|\.\.\.)/m;

/**
 * The `test` of every default, non-str tag of the yaml-1.1 schema, in schema order: null, bool
 * true/false, int (bin, oct, dec, hex), float (nan/inf, exp, plain), merge (`<<`), sexagesimal
 * int/float, timestamp. A plain string matching any of them is quoted (plainString, actualString).
 */
export const YAML11_TAG_TESTS: readonly RegExp[] = [
  /^(?:~|[Nn]ull|NULL)?$/,
  /^(?:Y|y|[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/,
  /^(?:N|n|[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/,
  /^[-+]?0b[0-1_]+$/,
  /^[-+]?0[0-7_]+$/,
  /^[-+]?[0-9][0-9_]*$/,
  /^[-+]?0x[0-9a-fA-F_]+$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?[eE][-+]?[0-9]+$/,
  /^[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*$/,
  /^<<$/,
  /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+$/,
  /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*$/,
  RegExp(
    '^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})' +
      '(?:' +
      '(?:t|T|[ \\t]+)' +
      '([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2}(\\.[0-9]+)?)' +
      '(?:[ \\t]*(Z|[-+][012]?[0-9](?::[0-9]{2})?))?' +
      ')?$',
  ),
];

/** Any of YAML11_TAG_TESTS, in one regexp (each alternative is anchored on its own). */
const RESOLVES_TO_NON_STRING = new RegExp(YAML11_TAG_TESTS.map((r) => `(?:${r.source})`).join('|'));

/**
 * Fast path, a sufficient condition for "plain as is" (both as a key and as a value, at any depth):
 * starts with an ASCII letter, then only ASCII letters, digits, `_ . / -`, and is not one of the
 * words or exponent forms that start with a letter and resolve to null/bool/float in YAML 1.1
 * (every other tag test needs a first character in `[-+.0-9~<]`). Such a string has no control
 * character, nothing NOT_PLAIN looks for and no document marker. The tests check this against the
 * full path, exhaustively for short strings and on random ones.
 */
const SIMPLE_CHAR = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z0-9_./-]/.test(ch)) SIMPLE_CHAR[c] = 1;
}
/** Letter-led strings of at most 5 characters that resolve to null or bool in YAML 1.1. */
const SHORT_LETTER_TRAP = /^(?:[Nn]ull|NULL|[YyNn]|[Yy]es|YES|[Nn]o|NO|[Tt]rue|TRUE|[Ff]alse|FALSE|[Oo]n|ON|[Oo]ff|OFF|[eE][-+]?[0-9]+)$/;
/** Letter-led floats: `e5`, `E-12` (floatExp with both optional leading parts empty). */
const LETTER_EXP = /^[eE][-+]?[0-9]+$/;

export function isSimplePlain(value: string): boolean {
  const n = value.length;
  if (n === 0) return false;
  const c0 = value.charCodeAt(0) | 0x20; // ASCII lower case
  if (c0 < 97 || c0 > 122) return false;
  for (let i = 1; i < n; i++) {
    const c = value.charCodeAt(i);
    if (c >= 128 || SIMPLE_CHAR[c] === 0) return false;
  }
  if (n <= 5) return !SHORT_LETTER_TRAP.test(value);
  return c0 !== 101 || !LETTER_EXP.test(value); // 'e'
}

// ---------------------------------------------------------------------------------------------
// String styles (ports of stringifyString.js for our options)

/** doubleQuotedString, lineWidth 0 (foldFlowLines is a no-op), doubleQuotedAsJSON false. */
function doubleQuoted(value: string, indentIn: string, implicitKey: boolean): string {
  const json = JSON.stringify(value);
  const indent = indentIn || (DOCUMENT_MARKER.test(value) ? '  ' : '');
  let str = '';
  let start = 0;
  for (let i = 0, ch = json[i]; ch; ch = json[++i]) {
    if (ch === ' ' && json[i + 1] === '\\' && json[i + 2] === 'n') {
      // space before newline needs to be escaped to not be folded
      str += json.slice(start, i) + '\\ ';
      i += 1;
      start = i;
      ch = '\\';
    }
    if (ch === '\\')
      switch (json[i + 1]) {
        case 'u': {
          str += json.slice(start, i);
          const code = json.substr(i + 2, 4);
          switch (code) {
            case '0000':
              str += '\\0';
              break;
            case '0007':
              str += '\\a';
              break;
            case '000b':
              str += '\\v';
              break;
            case '001b':
              str += '\\e';
              break;
            case '0085':
              str += '\\N';
              break;
            case '00a0':
              str += '\\_';
              break;
            case '2028':
              str += '\\L';
              break;
            case '2029':
              str += '\\P';
              break;
            default:
              if (code.substr(0, 2) === '00') str += '\\x' + code.substr(2);
              else str += json.substr(i, 6);
          }
          i += 5;
          start = i + 1;
          break;
        }
        case 'n':
          if (implicitKey || json[i + 2] === '"' || json.length < 40) {
            i += 1;
          } else {
            // folding will eat first newline
            str += json.slice(start, i) + '\n\n';
            while (json[i + 2] === '\\' && json[i + 3] === 'n' && json[i + 4] !== '"') {
              str += '\n';
              i += 2;
            }
            str += indent;
            // space after newline needs to be escaped to not be folded
            if (json[i + 2] === ' ') str += '\\';
            i += 1;
            start = i + 1;
          }
          break;
        default:
          i += 1;
      }
  }
  return start ? str + json.slice(start) : json;
}

/** singleQuotedString (no folding at lineWidth 0). */
function singleQuoted(value: string, indentIn: string, implicitKey: boolean): string {
  if ((implicitKey && value.includes('\n')) || /[ \t]\n|\n[ \t]/.test(value)) return doubleQuoted(value, indentIn, implicitKey);
  const indent = indentIn || (DOCUMENT_MARKER.test(value) ? '  ' : '');
  return "'" + value.replace(/'/g, "''").replace(/\n+/g, `$&\n${indent}`) + "'";
}

/** quotedString with singleQuote: null: single quotes only for strings with `"` and no `'`. */
function quoted(value: string, indent: string, implicitKey: boolean): string {
  return value.includes('"') && !value.includes("'") ? singleQuoted(value, indent, implicitKey) : doubleQuoted(value, indent, implicitKey);
}

let blockEndNewlines: RegExp;
try {
  blockEndNewlines = new RegExp('(^|(?<!\n))\n+(?!\n|$)', 'g');
} catch {
  blockEndNewlines = /\n+(?!\n|$)/g;
}

/** blockString with lineWidth 0: always literal (`|`), chomping and indentation indicators as yaml. */
function blockLiteral(valueIn: string, ctxIndent: string, forceBlockIndent: boolean, implicitKey: boolean): string {
  let value = valueIn;
  if (/\n[\t ]+$/.test(value)) return quoted(value, ctxIndent, implicitKey);
  const indent = ctxIndent || (forceBlockIndent || DOCUMENT_MARKER.test(value) ? '  ' : '');
  if (!value) return '|\n';
  let chomp: string;
  let endStart: number;
  for (endStart = value.length; endStart > 0; --endStart) {
    const ch = value[endStart - 1];
    if (ch !== '\n' && ch !== '\t' && ch !== ' ') break;
  }
  let end = value.substring(endStart);
  const endNlPos = end.indexOf('\n');
  if (endNlPos === -1) chomp = '-';
  else if (value === end || endNlPos !== end.length - 1) chomp = '+';
  else chomp = '';
  if (end) {
    value = value.slice(0, -end.length);
    if (end[end.length - 1] === '\n') end = end.slice(0, -1);
    end = end.replace(blockEndNewlines, `$&${indent}`);
  }
  let startWithSpace = false;
  let startEnd: number;
  let startNlPos = -1;
  for (startEnd = 0; startEnd < value.length; ++startEnd) {
    const ch = value[startEnd];
    if (ch === ' ') startWithSpace = true;
    else if (ch === '\n') startNlPos = startEnd;
    else break;
  }
  let start = value.substring(0, startNlPos < startEnd ? startNlPos + 1 : startEnd);
  if (start) {
    value = value.substring(start.length);
    start = start.replace(/\n+/g, `$&${indent}`);
  }
  const header = (startWithSpace ? (indent ? '2' : '1') : '') + chomp;
  value = value.replace(/\n+/g, `$&${indent}`);
  return `|${header}\n${indent}${start}${value}${end}`;
}

/**
 * stringifyString -> plainString for a string scalar.
 * @param indent ctx.indent: the indentation of the scalar's content lines ('' only at the top level)
 * @param implicitKey true for mapping keys
 */
export function scalarString(value: string, indent: string, implicitKey: boolean): string {
  if (FORCE_DOUBLE.test(value)) return doubleQuoted(value, indent, implicitKey);
  const multiLine = value.includes('\n');
  if (implicitKey && multiLine) return quoted(value, indent, implicitKey);
  if (NOT_PLAIN.test(value)) {
    return implicitKey || !multiLine ? quoted(value, indent, implicitKey) : blockLiteral(value, indent, false, implicitKey);
  }
  if (multiLine) return blockLiteral(value, indent, false, implicitKey);
  if (DOCUMENT_MARKER.test(value)) {
    if (indent === '') return blockLiteral(value, indent, true, implicitKey);
    if (implicitKey && indent === '  ') return quoted(value, indent, implicitKey);
  }
  // The string `<<` gets the merge tag object (its test is more specific than str's), whose
  // stringify writes it plain, as a key and as a value alike.
  if (value === '<<') return value;
  if (RESOLVES_TO_NON_STRING.test(value)) return quoted(value, indent, implicitKey);
  return value;
}

/** stringifyNumber (no format, no minFractionDigits). */
export function numberString(n: number): string {
  if (n !== n) return '.nan';
  if (n === Infinity) return '.inf';
  if (n === -Infinity) return '-.inf';
  if (n === 0 && 1 / n < 0) return '-0';
  return String(n);
}
