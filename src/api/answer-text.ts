/**
 * Short, readable descriptions of answers that are not what the client asked for: an HTML page
 * (a proxy's error page, a login or maintenance page), a body cut short, or text that is not JSON.
 * A person reads these in `sync_runs.error` and job errors, so they say what arrived in at most
 * about 200 characters instead of quoting kilobytes of markup.
 */

const MAX_SUMMARY = 200;

function oneLine(text: string, max = MAX_SUMMARY): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Whether a body is an HTML page, by its content type or its first characters. */
export function isHtml(contentType: string | undefined, text: string): boolean {
  if (contentType && /html/i.test(contentType)) return true;
  return /^\s*(<!doctype html|<html[\s>]|<head[\s>]|<body[\s>])/i.test(text);
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
  return text.replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** An HTML page as its title, or else its first line of visible text. */
export function htmlSummary(text: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1];
  const titleText = title ? oneLine(decodeEntities(title.replace(/<[^>]*>/g, ' '))) : '';
  if (titleText) return `"${titleText}"`;
  const body = text
    .replace(/<(script|style|head)[\s>][\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, '\n')
    .split('\n')
    .map((line) => decodeEntities(line).trim())
    .find((line) => line !== '');
  return body ? `"${oneLine(body, 120)}"` : '(no text)';
}

/** `text/html; charset=utf-8` → `text/html`. */
function mediaType(contentType: string | undefined): string {
  return contentType?.split(';')[0]?.trim() || 'no content type';
}

/**
 * What an error answer (4xx/5xx) said, for the error's message: the service's plain text as it
 * is (shortened), or for an HTML page its content type and title.
 */
export function errorBodyText(contentType: string | undefined, text: string): string {
  if (isHtml(contentType, text)) return `an HTML page (${mediaType(contentType)}) ${htmlSummary(text)}`;
  return text;
}

/**
 * Why a 2xx answer could not be read as JSON: an HTML page, a body cut short (JSON that stops
 * before it is complete; with the lengths), or text that is not JSON at all.
 */
export function unreadableJson(
  status: number,
  contentType: string | undefined,
  text: string,
  bytes: number,
  error: unknown,
): string {
  if (isHtml(contentType, text))
    return `${status} answer was an HTML page, not JSON (${mediaType(contentType)}) ${htmlSummary(text)}`;
  if (looksTruncated(text, error)) {
    return `${status} answer was cut short: its JSON stops after ${bytes} bytes before it is complete`;
  }
  const start = oneLine(text, 60);
  return `${status} answer was not JSON (${mediaType(contentType)}): ${start === '' ? 'an empty body' : `"${start}"`}`;
}

/** JSON that failed only because it ended early: a valid start of a document, cut off. */
function looksTruncated(text: string, error: unknown): boolean {
  const trimmed = text.trimEnd();
  if (!/^\s*[[{]/.test(trimmed)) return false;
  const message = error instanceof Error ? error.message : '';
  if (/end of JSON input|Unterminated/i.test(message)) return true;
  const position = /at position (\d+)/.exec(message)?.[1];
  return position !== undefined && Number(position) >= trimmed.length;
}

/**
 * The text without a leading UTF-8 byte order mark. The service may put one before its JSON, and
 * RFC 8259 lets a parser ignore it; JSON.parse does not, so every JSON answer passes through here.
 */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * The service's message when a JSON answer is an error object instead of data
 * (`{"error": {"message": "…", "code": 500}}`, `{"error": "…"}`), else null. The service (PHP)
 * may answer one with status 200, so a 2xx answer is not proof of data.
 */
export function errorObjectMessage(json: unknown): string | null {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return null;
  const { error, errors, message } = json as Record<string, unknown>;
  const reported = error ?? errors;
  if (reported === undefined || reported === null || reported === false) return null;
  return describeError(reported) ?? describeError(message) ?? oneLine(JSON.stringify(reported) ?? '');
}

/** An error's text: a string as it is, `{message, code}` as "message (code N)", a list joined. */
function describeError(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() === '' ? null : oneLine(value);
  if (Array.isArray(value)) {
    const texts = value.map(describeError).filter((text) => text !== null);
    return texts.length > 0 ? oneLine(texts.join('; ')) : null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { message, code } = value as Record<string, unknown>;
  const text = describeError(message);
  if (text === null) return null;
  return typeof code === 'string' || typeof code === 'number' ? `${text} (code ${code})` : text;
}
