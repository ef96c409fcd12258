import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { RECOMMENDED_RETENTION_DAYS, retentionDays, retentionWarning } from '../../src/client/retention.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('the namespace retention', () => {
  it('warns when closed histories are kept for less than a loop lives, and says how to raise it', () => {
    expect(retentionWarning('champion-loop', 1)).toMatch(
      /keeps closed workflow histories for 1 days?;.*ledger copy.*--retention 30d/,
    );
    expect(retentionWarning('ns', 0.5)).toMatch(/for 12 hours/);
    expect(retentionWarning('ns', RECOMMENDED_RETENTION_DAYS)).toBeNull();
    expect(retentionWarning('ns', null)).toBeNull();
  });

  describe('of a dev server started from temporal-dev.yaml', () => {
    let server: TestServer;
    let connection: Connection;
    beforeAll(async () => {
      server = await startTestServer();
      connection = await Connection.connect({ address: server.address });
    });
    afterAll(async () => {
      await connection?.close();
      await server?.dispose();
    });

    it('is the 90 days the file sets, not the dev server default of one day', async () => {
      const client = new Client({ connection, namespace: server.namespace });
      expect(await retentionDays(client)).toBe(90);
    });
  });
});
