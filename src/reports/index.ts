export { REPORTS, findReport, type Report } from '../catalog/index.js';
export { reportChart, runReport, type ReportChartData, type ReportRequest, type ReportResult } from './run.js';
