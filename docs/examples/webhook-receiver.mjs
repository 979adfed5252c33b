// A minimal CALL_ENDED receiver that verifies both signature headers (docs/api-guide.md, Webhooks).
//
//   WEBHOOK_SECRET=<the agent's webhook secret> node docs/examples/webhook-receiver.mjs
//
// Listens on 127.0.0.1:4000 (PORT to change it), prints each event and answers 200 when the
// signature is right, 401 otherwise. Node only, no dependencies.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const secret = process.env.WEBHOOK_SECRET;
const port = Number(process.env.PORT ?? 4000);
if (!secret) {
  console.error('Set WEBHOOK_SECRET to the secret in the agent’s webhook_config.');
  process.exit(1);
}

/** Constant-time comparison of two hex digests. */
function sameDigest(received, expected) {
  return (
    typeof received === 'string' &&
    received.length === expected.length &&
    timingSafeEqual(Buffer.from(received), Buffer.from(expected))
  );
}

/** X-Service-Signature: hex HMAC-SHA256 of the raw body. */
function verifySignature(rawBody, header) {
  return sameDigest(header, createHmac('sha256', secret).update(rawBody).digest('hex'));
}

/** X-Service-Signature-Timestamped: t=<unix seconds>,v1=<hex HMAC of "<t>.<raw body>">, at most 5 minutes old. */
function verifyTimestamped(rawBody, header, toleranceSeconds = 300) {
  const parts = Object.fromEntries(
    String(header ?? '')
      .split(',')
      .map((part) => part.split('=')),
  );
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex');
  return sameDigest(parts.v1, expected);
}

createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    // Verify the bytes as received, before parsing: re-serialised JSON would not match.
    const rawBody = Buffer.concat(chunks);
    const signed = verifySignature(rawBody, request.headers['x-service-signature']);
    const fresh = verifyTimestamped(rawBody, request.headers['x-service-signature-timestamped']);
    if (!signed || !fresh) {
      console.log(
        `refused a delivery: signature ${signed ? 'ok' : 'wrong'}, timestamped ${fresh ? 'ok' : 'wrong'}`,
      );
      response.writeHead(401).end();
      return;
    }
    const { event, data } = JSON.parse(rawBody.toString('utf8'));
    // Deliveries are at least once: a real receiver deduplicates by data.session_id.
    console.log(
      `${event} ${data.session_id} ${data.status} ${data.duration_seconds}s sentiment=${data.sentiment}`,
      `event id ${request.headers['x-service-event-id']}`,
    );
    response.writeHead(200).end();
  });
}).listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${port}/`));
