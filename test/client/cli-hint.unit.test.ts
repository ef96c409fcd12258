import { describe, expect, it } from 'vitest';
import { resumeCommand } from '../../src/client/loop-start.js';
import { cliHint } from '../../src/client/cli-hint.js';

describe('hints name what the command needs', () => {
  it('a status hint names TEMPORAL_ADDRESS (and the namespace) when the server is not where the CLI looks by default', () => {
    expect(cliHint('./bin/champion-loop.js status demo', '127.0.0.1:7233')).toBe('./bin/champion-loop.js status demo');
    expect(cliHint('./bin/champion-loop.js status demo', 'localhost:7233', 'default')).toBe(
      './bin/champion-loop.js status demo',
    );
    expect(cliHint('./bin/champion-loop.js status demo', '127.0.0.1:7300')).toBe(
      'TEMPORAL_ADDRESS=127.0.0.1:7300 ./bin/champion-loop.js status demo',
    );
    expect(cliHint('champion-loop status demo', '127.0.0.1:7300', 'loops')).toBe(
      'TEMPORAL_ADDRESS=127.0.0.1:7300 TEMPORAL_NAMESPACE=loops champion-loop status demo',
    );
  });

  it('the resume hint is the whole start command, with --config', () => {
    expect(resumeCommand('gate', '/srv/loops/gate/')).toBe(
      'champion-loop start gate --config /srv/loops/gate/loop.yaml (or the loop.yaml you started it with)',
    );
    expect(resumeCommand('gate')).toBe('champion-loop start gate --config <its loop.yaml>');
  });
});
