// What every e2e test holds the lab to, whatever it tests: no request leaves the page's origin
// (the lab makes no network requests of its own at run time) and the Content-Security-Policy is
// never violated. Each browser context the tests open is guarded (guardContext); an afterEach hook
// (checkGuards) fails the test that caused a problem, naming the URL or the directive, and clears
// the list for the next test.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Problems seen since the last check, in the order they happened. */
const problems = [];
/** Origins a test serves pages from itself (a host page embedding the lab), besides the lab's. */
const extraOrigins = new Set();

/** Allows requests to `url`'s origin until the returned function is called. */
export function allowOrigin(url) {
  const origin = new URL(url).origin;
  extraOrigins.add(origin);
  return () => extraOrigins.delete(origin);
}

/** The problem a request to `url` is, or null: data:, blob: and about: are not network requests. */
export function offOriginProblem(url, labOrigin) {
  if (/^(data|blob|about|chrome-error):/.test(url)) return null;
  let origin;
  try {
    origin = new URL(url).origin;
  } catch {
    return `a request to an unreadable URL: ${url}`;
  }
  return origin === labOrigin || extraOrigins.has(origin) ? null : `a request off the page's origin (${labOrigin}): ${url}`;
}

/** Runs in every page and frame before its scripts: each CSP violation is logged with a marker the guard reads. */
function reportViolations() {
  document.addEventListener('securitypolicyviolation', (e) => {
    const where = e.sourceFile ? ` by ${e.sourceFile.replace(/^.*\//, '')}:${e.lineNumber}:${e.columnNumber}` : '';
    console.error(`CSP violation: ${e.effectiveDirective} blocked ${e.blockedURI || '(inline)'} in ${e.documentURI}${where}${e.sample ? ` (${e.sample})` : ''}`);
  });
}

/** Records off-origin requests and CSP violations of every page (and worker) of `context`. */
export async function guardContext(context, baseUrl) {
  const labOrigin = new URL(baseUrl).origin;
  context.on('request', (request) => {
    const problem = offOriginProblem(request.url(), labOrigin);
    if (problem) problems.push(problem);
  });
  context.on('console', (message) => {
    const text = message.text();
    if (text.startsWith('CSP violation: ') || /Content Security Policy/i.test(text)) problems.push(text);
  });
  await context.addInitScript(reportViolations);
}

/** The problems seen since the last call, which it forgets. */
export function takeProblems() {
  return problems.splice(0);
}

/** Fails (the test in whose afterEach it runs) when a guarded context saw a problem. */
export function checkGuards() {
  const seen = takeProblems();
  assert.deepEqual(seen, [], `off-origin requests or CSP violations:\n${seen.join('\n')}`);
}

/** The policy the build wrote into `distDir`/index.html (its meta tag); throws when there is none. */
export function builtPolicy(distDir) {
  const html = readFileSync(join(distDir, 'index.html'), 'utf8');
  const m = /<meta http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html);
  if (!m) throw new Error(`${distDir}/index.html has no Content-Security-Policy meta tag: is it a production build (vite build)?`);
  return m[1].replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, '&');
}
