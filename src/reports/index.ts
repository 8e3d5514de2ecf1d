export { REPORTS, findReport, type Report } from '../catalog/index.js';
export { runReport, type ReportResult } from './run.js';
