import { describe, expect, it } from 'vitest';
import { report } from '../../src/cli/check-client.js';

const tarball = 'dist/form-funnel-client-1.0.0.tgz';

describe('npm run client:check, its report', () => {
  it('when every check passes, then one line each, the projects with the build they loaded, and exit 0', () => {
    expect(
      report(tarball, [
        { check: 'publint', ok: true, output: 'All good!' },
        { check: 'module project', ok: true, output: 'loads node_modules/@form-funnel/client/dist/esm/src/client/index.js' },
      ]),
    ).toEqual({
      text: `packed ${tarball}\nok     publint\nok     module project: loads node_modules/@form-funnel/client/dist/esm/src/client/index.js\n`,
      exitCode: 0,
    });
  });

  it('when one check fails, then it is marked FAILED with its tool’s report below it, the others still listed, and exit 1', () => {
    expect(
      report(tarball, [
        { check: 'publint', ok: false, output: 'Errors:\n1. pkg.main is ./missing.cjs but the file does not exist.\n' },
        { check: 'attw', ok: true, output: 'No problems found' },
      ]),
    ).toEqual({
      text: `packed ${tarball}\nFAILED publint\nErrors:\n1. pkg.main is ./missing.cjs but the file does not exist.\nok     attw\n`,
      exitCode: 1,
    });
  });
});
