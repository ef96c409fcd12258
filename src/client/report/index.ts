export { frontPlot, niceTicks, stepPath } from './front-plot.js';
export { escapeHtml } from './html.js';
export { renderReport, type ReportOptions } from './render-report.js';
export { reportModel, type GenerationReport, type PlotPoint, type ReportModel } from './report-model.js';
