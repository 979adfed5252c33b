import { createTestDatabase, type TestDatabase } from '@voice/shared/testing';
import postgres from 'postgres';
import { type NatsTopology, type NatsTopologyOptions, startNatsTopology } from './nats-topology';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';

export interface WebhookTopology {
  database: TestDatabase;
  /** The test's own connection to the database (webhook.deliveries, campaign.contacts ...). */
  sql: postgres.Sql;
  receiver: WebhookReceiver;
  topology: NatsTopology;
  /** Stops the processes, the receiver and the connection, and drops the database. */
  stop(): Promise<void>;
}

/**
 * What the webhook restart tests run on: a database of their own, a local receiver the webhook
 * service may deliver to (private addresses allowed), and the NATS topology with `retryBaseMs`
 * between a delivery's attempts.
 */
export async function startWebhookTopology(
  options: Omit<NatsTopologyOptions, 'databaseUrl' | 'env'> & { retryBaseMs: number },
): Promise<WebhookTopology> {
  const { retryBaseMs, ...topologyOptions } = options;
  const database = await createTestDatabase('nats');
  const sql = postgres(database.url, { max: 2, onnotice: () => {} });
  let receiver: WebhookReceiver | undefined;
  const release = async () => {
    await receiver?.close();
    await sql.end({ timeout: 5 });
    await database.drop();
  };
  try {
    receiver = await startWebhookReceiver();
    const topology = await startNatsTopology({
      ...topologyOptions,
      databaseUrl: database.url,
      env: {
        PUBLIC_BASE_URL: 'http://voice.example.test',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_RETRY_BASE_MS: String(retryBaseMs),
        DATABASE_POOL_SIZE: '4',
      },
    });
    return {
      database,
      sql,
      receiver,
      topology,
      async stop() {
        await topology.stop();
        await release();
      },
    };
  } catch (error) {
    await release();
    throw error;
  }
}
