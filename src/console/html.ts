/** What a piece of a page is: Hono's escaped HTML, or the promise of it. Apart from layout.ts so that every module of the console can name it. */
import type { HtmlEscapedString } from 'hono/utils/html';

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;
