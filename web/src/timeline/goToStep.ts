// The "Go to step" field's input (pure): a step number typed plain or with its digits grouped
// in threes (1234567, 1,234,567, 1 234 567, 1_234_567), from 0 to the run's last step.
import { formatCount } from '../base/format';
import { quoteForMessage } from '../share/url';

/** What was typed: the step, or a message saying what is wrong (the field keeps the text). */
export type StepInput = { ok: true; step: number } | { ok: false; message: string };

/** Separators accepted between groups of three digits: comma, space, no-break spaces, underscore, apostrophe. */
const GROUPED = /^\d{1,3}(?:([,\s\u00a0\u202f_'])\d{3})?(?:\1\d{3})*$/;

/** Reads a step typed for a run whose last step is `total`. */
export function parseStepInput(text: string, total: number): StepInput {
  const t = text.trim();
  const range = `a step from 0 to ${formatCount(total)}`;
  if (t === '') return { ok: false, message: `Type ${range}.` };
  let digits: string;
  if (/^\d+$/.test(t)) digits = t;
  else if (GROUPED.test(t)) digits = t.replace(/\D/g, '');
  else if (/^-\s*\d/.test(t)) return { ok: false, message: `${quoteForMessage(t)} is below 0: type ${range}.` };
  else if (/^\d[\d,.\s\u00a0\u202f_']*$/.test(t) && /[.]\d/.test(t) && !/,/.test(t)) return { ok: false, message: `${quoteForMessage(t)} is not a whole number: type ${range} (group digits with commas, 1,234,567).` };
  else if (/^\d[\d,\s\u00a0\u202f_']*$/.test(t)) return { ok: false, message: `${quoteForMessage(t)}: group digits in threes (1,234,567) or type them plain (1234567).` };
  else return { ok: false, message: `${quoteForMessage(t)} is not a step number: type ${range}.` };
  // Longer than any run can be: refuse before Number() rounds it.
  if (digits.replace(/^0+(?=\d)/, '').length > 15) return { ok: false, message: `${quoteForMessage(t)} is past the last step (${formatCount(total)}).` };
  const step = Number(digits);
  if (step > total) return { ok: false, message: `Step ${formatCount(step)} is past the last step (${formatCount(total)}).` };
  return { ok: true, step };
}
