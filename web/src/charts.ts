import { BarChart, LineChart } from 'echarts/charts';
import {
  AriaComponent,
  GridComponent,
  LegendComponent,
  TooltipComponent,
} from 'echarts/components';
import { init, use, type ECharts } from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';

// Apache ECharts, only the parts drawn here (docs/decisions.md, "The dashboard's charts"): bars,
// a line, axes, tooltip, legend and ARIA, drawn as SVG. Charts plot numbers made from the API's
// decimal strings for their geometry only; every figure the page writes as text comes from the
// strings themselves.
use([
  BarChart,
  LineChart,
  GridComponent,
  TooltipComponent,
  LegendComponent,
  AriaComponent,
  SVGRenderer,
]);

const charts = new WeakMap<HTMLElement, ECharts>();

function chartIn(element: HTMLElement): ECharts {
  let chart = charts.get(element);
  if (!chart || chart.isDisposed()) {
    chart = init(element, undefined, { renderer: 'svg' });
    charts.set(element, chart);
    new ResizeObserver(() => chart!.resize()).observe(element);
  }
  return chart;
}

/** Bars per member: one series per metric, values in the base currency. */
export function drawMemberBars(
  element: HTMLElement,
  members: string[],
  series: { name: string; values: (number | null)[] }[],
  currency: string,
): void {
  chartIn(element).setOption(
    {
      aria: { enabled: true },
      animation: false,
      tooltip: { trigger: 'axis' },
      legend: { top: 0 },
      grid: { left: 8, right: 8, bottom: 8, top: 40, containLabel: true },
      xAxis: {
        type: 'category',
        data: members,
        axisLabel: { interval: 0, rotate: members.length > 6 ? 30 : 0 },
      },
      yAxis: { type: 'value', name: currency },
      series: series.map((s) => ({ type: 'bar', name: s.name, data: s.values })),
    },
    { notMerge: true },
  );
}

/** Margin % per month as a line. */
export function drawMarginLine(
  element: HTMLElement,
  months: string[],
  percents: (number | null)[],
): void {
  chartIn(element).setOption(
    {
      aria: { enabled: true },
      animation: false,
      tooltip: {
        trigger: 'axis',
        valueFormatter: (v: unknown) => (typeof v === 'number' ? `${v} %` : '–'),
      },
      grid: { left: 8, right: 16, bottom: 8, top: 24, containLabel: true },
      xAxis: { type: 'category', data: months },
      // Left-aligned: a centred name is cut by the chart's edge when the labels are narrow.
      yAxis: { type: 'value', name: 'margin %', nameTextStyle: { align: 'left' } },
      series: [{ type: 'line', name: 'Margin %', data: percents, connectNulls: false }],
    },
    { notMerge: true },
  );
}
