/**
 * A small line of daily counts (docs/web-ui.md#link-tables), drawn with SVG attributes only: the
 * CSP refuses `style=` attributes, and the stroke takes the text colour of its `class`. The
 * numbers it draws are also said in text beside it, so it is hidden from assistive technology.
 */
const WIDTH = 56;
const HEIGHT = 16;

/** The polyline of `counts`, scaled to the box; all-zero counts lie flat on the bottom edge. */
export function sparkPoints(counts: readonly number[], width = WIDTH, height = HEIGHT): string {
  const max = Math.max(1, ...counts);
  const step = counts.length > 1 ? width / (counts.length - 1) : 0;
  return counts
    .map((n, i) => {
      const x = i * step;
      const y = height - 1 - (n / max) * (height - 2);
      return `${round(x)},${round(y)}`;
    })
    .join(' ');
}

const round = (v: number): string => String(Math.round(v * 10) / 10);

export function Sparkline({ counts, class: cls = 'text-primary' }: { counts: readonly number[]; class?: string }) {
  return (
    <svg
      xmlns="http://www.w3.org/2000/svg"
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      width={WIDTH}
      height={HEIGHT}
      class={`shrink-0 ${cls}`}
      aria-hidden="true"
      focusable="false"
      data-sparkline=""
    >
      <polyline
        points={sparkPoints(counts)}
        fill="none"
        stroke="currentColor"
        stroke-width="1.5"
        stroke-linejoin="round"
        stroke-linecap="round"
      />
    </svg>
  );
}
