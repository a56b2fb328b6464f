import { describe, expect, it } from 'vitest';
import { isLocalBase, linkBase } from './build';

describe('where links point', () => {
  it('uses the page’s own address when the build was given no public one', () => {
    expect(linkBase({ origin: 'https://lab.example', pathname: '/mmviz/', href: 'https://lab.example/mmviz/#v=2' })).toBe('https://lab.example/mmviz/');
  });
  it('knows a link to this machine from one that reaches others', () => {
    expect(isLocalBase('http://127.0.0.1:5173/#v=2')).toBe(true);
    expect(isLocalBase('http://localhost/')).toBe(true);
    expect(isLocalBase('http://[::1]:8080/')).toBe(true);
    expect(isLocalBase('https://user.github.io/mmviz/')).toBe(false);
    expect(isLocalBase('not a url')).toBe(false);
  });
});
