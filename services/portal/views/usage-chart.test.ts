import { describe, expect, it } from 'vitest';
import type { DayUsage } from '../activity.ts';
import { creditsBar, hourlyChart } from './usage-chart.ts';

const day = (byHour: Record<number, Record<string, number>>): DayUsage => {
  const hours = Array.from({ length: 24 }, (_, h) => byHour[h] ?? {});
  const total = hours.reduce((n, h) => n + Object.values(h).reduce((a, b) => a + b, 0), 0);
  return { total, bands: {}, hours };
};
/** The numeric attributes of the SVG elements with `class`, in order. */
const rects = (svg: string, cls: string) =>
  [...svg.matchAll(new RegExp(`class="${cls}"[^>]*?width="([\\d.]+)"`, 'g'))].map((m) => Number(m[1]));

describe('the usage chart', () => {
  it('says in words what the bars show: the total and the busiest hour', () => {
    const svg = hourlyChart(
      day({ 3: { minimal: 10, high: 2 }, 14: { minimal: 40, critical: 1 } }),
    ).toString();
    expect(svg).toContain('53 scores today; the busiest hour is 14:00 UTC with 41.');
    // Each hour's bar is titled with its bands, in band order.
    expect(svg).toContain('<title>03:00 UTC: 12 scores (minimal 10, high 2)</title>');
    expect(svg).toContain('<title>14:00 UTC: 41 scores (minimal 40, critical 1)</title>');
    expect(svg).toContain('<title>05:00 UTC: 0 scores</title>');
    // One rectangle per band present in an hour, none for an empty hour.
    expect(svg.match(/class="fill-/g)).toHaveLength(4);
  });

  it('has a summary for a day without scores', () => {
    const svg = hourlyChart(day({})).toString();
    expect(svg).toContain('No scores yet today.');
    expect(svg).not.toContain('class="fill-');
  });

  it('draws no inline style: the CSP allows none', () => {
    const svg = hourlyChart(day({ 0: { low: 1 } })).toString();
    expect(svg).not.toContain('style=');
  });
});

describe('the credits bar', () => {
  it('splits the bar into allowance and grace, and the use into both', () => {
    // 480 wide: 800 of allowance and 200 of grace; 900 used fills the allowance and half the grace.
    const svg = creditsBar(900, 800, 200).toString();
    expect(rects(svg, 'allowance')).toEqual([384]);
    expect(rects(svg, 'grace')).toEqual([96]);
    expect(rects(svg, 'used')).toEqual([384]);
    expect(rects(svg, 'used-grace')).toEqual([48]);
  });

  it('never draws past the bar, and an empty plan still draws', () => {
    expect(rects(creditsBar(5_000, 800, 200).toString(), 'used-grace')).toEqual([96]);
    expect(rects(creditsBar(100, 800, 0).toString(), 'used-grace')).toEqual([0]);
    expect(creditsBar(0, 0, 0).toString()).toContain('class="allowance"');
  });
});
