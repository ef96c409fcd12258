// Each GPU card over time as inline SVG (pure): its jobs as bars stacked by the memory they held,
// those whose peak the ledger lacks drawn at their admitted need (lighter), their waits for room
// as a band under the axis, their out-of-memory retries marked above them, and the card's size as
// a ceiling when its dispatch rows say it (`device_total_mib`; else the scale's top is the most its
// jobs held at once: card-model.ts).
import { cardsOf, stackPieces, type Card, type CardJob } from './card-model.js';
import { niceTicks } from './front-plot.js';
import { html, shortTime, type Html } from './html.js';

const WIDTH = 800;
const HEIGHT = 230;
const PLOT = { left: 64, top: 24, right: 780, bottom: 180 };
/** The band under the axis where waits are drawn. */
const WAIT_BAND = { top: 186, height: 8 };

const fixed = (value: number): string => value.toFixed(1);
const gib = (mib: number): string => (mib / 1024).toFixed(1);
const minutes = (ms: number): string => `${Math.max(0, Math.round(ms / 60_000))} min`;

/** What a job's bar says when pointed at. */
function jobTitle(job: CardJob): string {
  const held = job.peakKnown ? `held at most ${gib(job.heldMiB)} GiB` : 'peak not in the ledger';
  const oom = job.oomRetries > 0 ? `, ${job.oomRetries} out-of-memory retr${job.oomRetries === 1 ? 'y' : 'ies'}` : '';
  return `${job.job} (${job.kind}): ${held}, admitted to ${gib(job.needMiB)} GiB, ${minutes(job.endMs - job.startMs)} on the card${oom}`;
}

/** One card's plot. */
function cardPlot(card: Card): Html {
  const { jobs } = card;
  const fromMs = Math.min(...jobs.map((job) => job.waitFromMs ?? job.startMs));
  const toMs = Math.max(fromMs + 1, ...jobs.map((job) => job.endMs));
  const pieces = stackPieces(jobs);
  const topMiB = Math.max(1, card.totalMiB ?? 0, ...pieces.map((piece) => piece.baseMiB + piece.heldMiB));
  const ticks = niceTicks(topMiB / 1024, 4);
  const yMaxGiB = ticks[ticks.length - 1] ?? 1;
  const x = (ms: number): number => PLOT.left + ((ms - fromMs) / (toMs - fromMs)) * (PLOT.right - PLOT.left);
  const y = (mib: number): number => PLOT.bottom - (mib / 1024 / yMaxGiB) * (PLOT.bottom - PLOT.top);
  const axes = [
    ticks.map(
      (tick) =>
        html`<line class="grid" x1="${PLOT.left}" y1="${fixed(y(tick * 1024))}" x2="${PLOT.right}" y2="${fixed(y(tick * 1024))}"/><text class="tick-label y" x="${PLOT.left - 8}" y="${fixed(y(tick * 1024) + 4)}" text-anchor="end">${tick}</text>`,
    ),
    html`<line class="axis" x1="${PLOT.left}" y1="${PLOT.bottom}" x2="${PLOT.right}" y2="${PLOT.bottom}"/>`,
    card.totalMiB === null
      ? ''
      : html`<line class="card-ceiling" x1="${PLOT.left}" y1="${fixed(y(card.totalMiB))}" x2="${PLOT.right}" y2="${fixed(y(card.totalMiB))}"><title>the card's size: ${gib(card.totalMiB)} GiB (${card.totalMiB} MiB, as its lane read it)</title></line>`,
    html`<text class="axis-label" transform="translate(16 ${(PLOT.top + PLOT.bottom) / 2}) rotate(-90)" text-anchor="middle">GiB held</text>`,
    html`<text class="tick-label x" x="${PLOT.left}" y="${HEIGHT - 8}">${shortTime(new Date(fromMs).toISOString())}</text>`,
    html`<text class="tick-label x" x="${PLOT.right}" y="${HEIGHT - 8}" text-anchor="end">${shortTime(new Date(toMs).toISOString())}</text>`,
  ];
  const bars = jobs.map((job, at) => {
    const rects = pieces
      .filter((piece) => piece.job === at)
      .map(
        (piece) =>
          html`<rect x="${fixed(x(piece.fromMs))}" y="${fixed(y(piece.baseMiB + piece.heldMiB))}" width="${fixed(Math.max(0.5, x(piece.toMs) - x(piece.fromMs)))}" height="${fixed(y(piece.baseMiB) - y(piece.baseMiB + piece.heldMiB))}"/>`,
      );
    const look = `card-job${at % 2 === 1 ? ' alt' : ''}${job.peakKnown ? '' : ' need-only'}`;
    return html`<g class="${look}" data-job="${job.job}" data-held-mib="${job.heldMiB}"><title>${jobTitle(job)}</title>${rects}</g>`;
  });
  const waits = jobs
    .filter((job) => job.waitFromMs !== null)
    .map(
      (job) =>
        html`<rect class="card-wait" data-job="${job.job}" x="${fixed(x(job.waitFromMs ?? job.startMs))}" y="${WAIT_BAND.top}" width="${fixed(Math.max(1, x(job.startMs) - x(job.waitFromMs ?? job.startMs)))}" height="${WAIT_BAND.height}"><title>${job.job} waited ${minutes(job.startMs - (job.waitFromMs ?? job.startMs))} for room on the card before its step started</title></rect>`,
    );
  const ooms = jobs
    .filter((job) => job.oomRetries > 0)
    .map((job) => {
      const cx = x(job.startMs);
      return html`<path class="card-oom" data-job="${job.job}" d="M${fixed(cx - 6)},${PLOT.top - 14}L${fixed(cx + 6)},${PLOT.top - 14}L${fixed(cx)},${PLOT.top - 3}Z"><title>${job.job}: ${job.oomRetries} out-of-memory retr${job.oomRetries === 1 ? 'y' : 'ies'} (it ran out of memory, waited for room and ran again)</title></path>`;
    });
  return html`${[
    html`<svg class="card-plot" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" data-worker="${card.worker}" data-device="${card.device}" data-jobs="${jobs.length}" data-ooms="${ooms.length}" data-waits="${waits.length}" data-total-mib="${card.totalMiB ?? ''}">`,
    html`<title>${card.worker} device ${card.device}: ${jobs.length} jobs over time by the memory they held</title>`,
    html`<g class="axes">${axes}</g>`,
    html`<g class="bars">${bars}</g>`,
    html`<g class="waits">${waits}</g>`,
    html`<g class="ooms">${ooms}</g>`,
    html`</svg>`,
  ]}`;
}

/** What the caption says of the card's size: drawn as the ceiling, or not in the ledger. */
function ceilingWords(card: Card): Html {
  return card.totalMiB === null
    ? html`The ledger does not record this card's size (its lane is older): the scale's top is the most its jobs held at once.`
    : html`The line at the top is the card's size, ${gib(card.totalMiB)} GiB, as its lane read it.`;
}

/** The report's GPU cards section: one plot per card the ledger's dispatch rows name (empty: none). */
export function cardsSection(rows: Parameters<typeof cardsOf>[0]): Html | string {
  const cards = cardsOf(rows);
  if (cards.length === 0) return '';
  return html`${[
    html`<section class="cards" id="cards">`,
    html`<h2>GPU cards</h2>`,
    cards.map(
      (card) =>
        html`<figure>${cardPlot(card)}<figcaption>${card.worker}, device ${card.device}: each job's bar is as tall as the memory it held at most (lighter: its peak is not in the ledger, drawn at the need it was admitted by), stacked on the jobs beside it; ▼ marks out-of-memory retries, the band under the axis the time a job waited for room. ${ceilingWords(card)}</figcaption></figure>`,
    ),
    html`</section>`,
  ]}`;
}
