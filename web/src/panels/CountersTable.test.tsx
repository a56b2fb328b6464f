// @vitest-environment jsdom
// A counter's name may wrap only after an underscore: one <wbr> after each `_`, the text intact.
import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { CounterName } from './CountersTable';

afterEach(cleanup);

describe('CounterName', () => {
  it('puts a break opportunity after each underscore and nowhere else', () => {
    const { container } = render(<CounterName name="numa_hint_faults_local" />);
    expect(container.textContent).toBe('numa_hint_faults_local');
    expect(container.querySelectorAll('wbr')).toHaveLength(3);
    for (const w of container.querySelectorAll('wbr')) expect(w.previousSibling?.textContent?.endsWith('_')).toBe(true);
  });

  it('leaves a name without underscores whole, and keeps edge underscores', () => {
    expect(render(<CounterName name="pgfree" />).container.querySelectorAll('wbr')).toHaveLength(0);
    const { container } = render(<CounterName name="_x_" />);
    expect(container.textContent).toBe('_x_');
  });
});
