// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { render, fireEvent } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import RecordTable from '../../renderer/src/screens/browser/RecordTable.svelte';
import LineChart from '../../renderer/src/components/LineChart.svelte';
import BarList from '../../renderer/src/components/BarList.svelte';
import { RecordsState } from '../../renderer/src/lib/records-state.svelte.ts';
import { visibleRange } from '../../renderer/src/lib/virtual.ts';
import { fakeApi, millionRows, MILLION } from './fake-api.ts';

describe('visibleRange', () => {
  it('covers the viewport plus overscan, clamped to the list', () => {
    expect(visibleRange(0, 280, 28, 1000, 5)).toEqual({ start: 0, end: 16 });
    expect(visibleRange(28 * 500, 280, 28, 1000, 5)).toEqual({ start: 495, end: 516 });
    expect(visibleRange(28 * 2000, 280, 28, 1000, 5)).toEqual({ start: 994, end: 1000 });
    expect(visibleRange(0, 280, 28, 0)).toEqual({ start: 0, end: 0 });
  });
});

describe('RecordTable', () => {
  it('keeps the DOM small over a million records and fetches more as it scrolls', async () => {
    const { api, calls } = fakeApi({ 'records.query': millionRows() });
    const records = new RecordsState(api);
    await records.open('big');
    const { container } = render(RecordTable, { records, onreplay: () => {} });
    flushSync();
    const rows = () => container.querySelectorAll('[data-testid=record-row]').length;
    expect(rows()).toBeGreaterThan(0);
    expect(rows()).toBeLessThan(80);
    expect(container.querySelector('[data-testid=record-total]')!.textContent).toBe(MILLION.toLocaleString('en-US'));

    const scroller = container.querySelector('[data-testid=record-scroller]') as HTMLDivElement;
    scroller.scrollTop = 28 * 480;
    await fireEvent.scroll(scroller);
    await new Promise((r) => setTimeout(r, 10));
    flushSync();
    expect(calls.filter((c) => c.name === 'records.query').length).toBe(2);
    expect(records.count).toBe(1000);
    expect(rows()).toBeLessThan(80);
    const first = container.querySelector('[data-testid=record-row]') as HTMLElement;
    expect(Number(first.style.top.replace('px', '')) / 28).toBeGreaterThan(400);
  });
});

describe('charts and bars', () => {
  it('draws a line for the values and the current value', () => {
    const { container } = render(LineChart, { values: [1, 3, 2], label: 'URIs / second', unit: 'URI/s' });
    const points = container.querySelector('polyline')!.getAttribute('points')!.split(' ');
    expect(points).toHaveLength(3);
    expect(container.textContent).toContain('2.00');
  });

  it('scales bars to the largest count', () => {
    const { container } = render(BarList, { items: [{ label: '200', count: 10 }, { label: '404', count: 5 }] });
    const fills = [...container.querySelectorAll('.fill')] as HTMLElement[];
    expect(fills.map((f) => f.style.width)).toEqual(['100%', '50%']);
  });
});
