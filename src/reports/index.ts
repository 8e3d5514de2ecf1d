export { REPORTS, findReport, type Report } from './catalogue.js';
export { runReport, type ReportResult } from './run.js';
