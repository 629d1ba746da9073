// Text from clusters is data (H68): no terminal escapes, no control characters, one line, bounded,
// and in Markdown no HTML or markup.

import { describe, expect, it } from 'vitest';
import { markdownCell, MAX_MESSAGE_LENGTH, sanitizeMessage } from '../../src/observe/sanitize';

describe('sanitizeMessage', () => {
  it.each([
    ['CSI colours', '\u001b[1;31mError\u001b[0m: boom', 'Error: boom'],
    ['cursor movement and screen clearing', 'a\u001b[2J\u001b[Hb\u001b[10;5H', 'ab'],
    ['OSC window title and hyperlink', '\u001b]0;pwned\u0007x \u001b]8;;https://evil.example\u001b\\link\u001b]8;;\u001b\\', 'x link'],
    ['C1 CSI', 'a\u009b31mb', 'ab'],
    ['a lone ESC', 'a\u001b', 'a'],
    ['C0 controls, DEL and C1 controls', 'a\u0000b\u0007c\u007fd\u0085e', 'abcde'],
    ['newlines and tabs collapse', '  line one\r\n\tline two\n\n', 'line one line two'],
    ['Unicode line separators', 'a\u2028b\u2029c', 'a b c'],
    ['bidirectional overrides and zero-width characters', 'user\u202edcba\u202c \u200bx\ufeff', 'userdcba x'],
    ['a lone surrogate', 'a\ud800b', 'a\ufffdb'],
    ['template syntax stays literal', 'value ${HOME} and {{ .Values.x }}', 'value ${HOME} and {{ .Values.x }}'],
    ['HTML stays literal text', '<img src=x onerror=alert(1)>', '<img src=x onerror=alert(1)>'],
    ['a number', 42, '42'],
    ['an object is not text', { a: 1 }, ''],
    ['undefined', undefined, ''],
  ])('%s', (_title, input, expected) => {
    expect(sanitizeMessage(input)).toBe(expected);
  });

  it('caps at 512 code points with an ellipsis; a 1 MB message costs nothing', () => {
    const started = Date.now();
    const out = sanitizeMessage('x'.repeat(1024 * 1024));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(out.length).toBe(MAX_MESSAGE_LENGTH);
    expect(out.endsWith('…')).toBe(true);
    expect(sanitizeMessage('y'.repeat(512))).toBe('y'.repeat(512));
    expect(sanitizeMessage('y'.repeat(513))).toBe('y'.repeat(511) + '…');
  });

  it('never splits a surrogate pair when cutting', () => {
    const out = sanitizeMessage('😀'.repeat(600));
    expect(Array.from(out)).toHaveLength(512);
    expect(out).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it('is idempotent', () => {
    const inputs = ['\u001b\u001b[31mx', 'a\nb', 'z'.repeat(2000), '\u001b]0;t', '😀'.repeat(600)];
    for (const s of inputs) expect(sanitizeMessage(sanitizeMessage(s))).toBe(sanitizeMessage(s));
  });
});

describe('markdownCell', () => {
  it('escapes HTML and Markdown so the text renders as itself', () => {
    expect(markdownCell('<b>x</b> & [a](b) *c* _d_ `e` | f ~g~ $h$ \\')).toBe(
      '&lt;b&gt;x&lt;/b&gt; &amp; \\[a\\](b) \\*c\\* \\_d\\_ \\`e\\` \\| f \\~g\\~ \\$h\\$ \\\\',
    );
  });
});
