import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import {
  parseSipTrunkUri,
  SIP_DEFAULT_PORT,
  type SipTransport,
  type SipTrunkAddress,
} from '@voice/shared/contracts';
import { authorizedRetry, isChallenge } from './auth';
import { CallLeg } from './call-leg';
import type { LegContext } from './context';
import type { DigestCredentials } from './digest';
import { parseCSeq, parseSipUri, parseVia, tagOf } from './fields';
import { advertisedAddress } from './local-address';
import { header, type SipMessage, type SipRequest, type SipResponse } from './message';
import {
  resolveTimers,
  SILENT_LOGGER,
  type SipLogger,
  type SipTimers,
  type SipUserAgentOptions,
} from './options';
import {
  ALLOWED_METHODS,
  contactValue,
  hostPort,
  type LocalAddress,
  newBranch,
  newCallId,
  newTag,
  responseTo,
  viaValue,
} from './requests';
import { ResponseCache } from './response-cache';
import { ClientTransaction, type TransactionUser } from './transaction';
import { type Peer, SipTransports } from './transport';

export interface SipTrunk {
  /** `sip:host[:port][;transport=udp|tcp]` */
  uri: string;
  username?: string | null;
  /** Used only to answer digest challenges; never logged. */
  password?: string | null;
}

export interface InviteOptions {
  trunk: SipTrunk;
  /** Caller id: E.164 (`+15550001111`) or a SIP user name. */
  from: string;
  /** Number dialled. */
  to: string;
  sdpOffer: string;
  /** After this long without an answer we CANCEL (the call ends `no_answer`). */
  ringTimeoutMs: number;
}

export type OptionsResult =
  | { ok: true; sipCode: number; sipReason: string; latencyMs: number }
  | { ok: false; sipCode: number | null; sipReason: string | null; error: string; latencyMs: number };

/** A trunk or call setting the user agent cannot use; `issues` are sentences for an API client. */
export class SipConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(issues.join('; '));
    this.name = 'SipConfigError';
  }
}

const SIP_USER = /^\+?[0-9A-Za-z._*#-]{1,64}$/;
const MAX_SDP_BYTES = 16 * 1024;

/** A SIP user agent, client side: outgoing calls and OPTIONS pings over UDP and TCP trunks. */
export class SipUserAgent {
  private readonly transactions = new Map<string, ClientTransaction>();
  private readonly legs = new Map<string, CallLeg>();
  private readonly responses: ResponseCache;
  private readonly context: LegContext;

  private constructor(
    private readonly transports: SipTransports,
    readonly local: LocalAddress,
    readonly timers: SipTimers,
    private readonly logger: SipLogger,
    userAgent: string,
  ) {
    this.responses = new ResponseCache(timers.timerDMs);
    this.context = {
      local,
      timers,
      logger,
      userAgent,
      send: (message, peer) => this.send(message, peer),
      respond: (request, response, peer) => {
        this.responses.remember(request, response, peer);
        this.send(response, peer);
      },
      startTransaction: (request, peer, user) => this.startTransaction(request, peer, user),
      resolve: (uri, transport) => resolveUri(uri, transport),
      release: (callId) => this.legs.delete(callId),
    };
  }

  static async start(options: SipUserAgentOptions): Promise<SipUserAgent> {
    const logger = options.logger ?? SILENT_LOGGER;
    let agent: SipUserAgent | null = null;
    const transports = new SipTransports(
      options.bindAddress,
      {
        onMessage: (message, from) => agent?.receive(message, from),
        onConnectionLost: (peer, error) => agent?.connectionLost(peer, error),
      },
      logger,
    );
    const port = await transports.start(options.port ?? 0);
    const local = advertisedAddress(options.bindAddress, port, options.publicAddress);
    agent = new SipUserAgent(
      transports,
      local,
      resolveTimers(options.timers),
      logger,
      options.userAgent ?? 'voice-platform',
    );
    return agent;
  }

  get port(): number {
    return this.transports.port;
  }

  /** Places a call. Throws SipConfigError for an unusable trunk or number; all else is reported on the leg. */
  invite(options: InviteOptions): CallLeg {
    const trunk = trunkAddress(options.trunk);
    const issues = [
      ...(SIP_USER.test(options.from) ? [] : ['from must be an E.164 number or a SIP user name']),
      ...(SIP_USER.test(options.to) ? [] : ['to must be an E.164 number or a SIP user name']),
      ...(Buffer.byteLength(options.sdpOffer) <= MAX_SDP_BYTES ? [] : ['sdpOffer is too large']),
    ];
    if (issues.length > 0) throw new SipConfigError(issues);
    const target = hostPort(trunk.host, trunk.port);
    const uriParams = trunk.transport === 'tcp' ? ';transport=tcp' : '';
    const invite = this.request('INVITE', `sip:${options.to}@${target}${uriParams}`, trunk, {
      from: `<sip:${options.from}@${trunk.host}>;tag=${newTag()}`,
      to: `<sip:${options.to}@${trunk.host}>`,
      contactUser: options.from,
      body: options.sdpOffer,
    });
    const leg = new CallLeg(this.context, {
      invite,
      transport: trunk.transport,
      credentials: credentialsOf(options.trunk),
      localSdp: options.sdpOffer,
      ringTimeoutMs: options.ringTimeoutMs,
    });
    this.legs.set(leg.callId, leg);
    leg.begin(resolveHost(trunk));
    return leg;
  }

  /** An OPTIONS ping: any final response below 500 (other than 408) means the trunk is alive. */
  async options(trunkSettings: SipTrunk): Promise<OptionsResult> {
    const trunk = trunkAddress(trunkSettings);
    const started = Date.now();
    const elapsed = (): number => Date.now() - started;
    let peer: Peer;
    try {
      peer = await resolveHost(trunk);
    } catch (error) {
      return {
        ok: false,
        sipCode: null,
        sipReason: null,
        error: `cannot resolve ${trunk.host}: ${(error as Error).message}`,
        latencyMs: elapsed(),
      };
    }
    const uriParams = trunk.transport === 'tcp' ? ';transport=tcp' : '';
    const user = trunkSettings.username || 'ping';
    const first = this.request('OPTIONS', `sip:${hostPort(trunk.host, trunk.port)}${uriParams}`, trunk, {
      from: `<sip:${user}@${trunk.host}>;tag=${newTag()}`,
      to: `<sip:${trunk.host}>`,
      contactUser: user,
      body: '',
    });
    const send = (request: SipRequest, retried: boolean): Promise<OptionsResult> =>
      new Promise((resolve) => {
        this.startTransaction(request, peer, {
          onResponse: (response) => {
            if (response.status < 200) return;
            const again = retried ? null : authorizedRetry(request, response, credentialsOf(trunkSettings));
            if (again && isChallenge(response)) return void send(again, true).then(resolve);
            const ok = response.status < 500 && response.status !== 408;
            const base = { sipCode: response.status, sipReason: response.reason, latencyMs: elapsed() };
            resolve(
              ok ? { ok: true, ...base } : { ok: false, ...base, error: 'trunk answered with a failure' },
            );
          },
          onTimeout: () =>
            resolve({
              ok: false,
              sipCode: null,
              sipReason: null,
              error: 'no response',
              latencyMs: elapsed(),
            }),
          onTransportError: (error) =>
            resolve({
              ok: false,
              sipCode: null,
              sipReason: null,
              error: `transport error: ${error.message}`,
              latencyMs: elapsed(),
            }),
        });
      });
    return send(first, false);
  }

  /** Stops every timer and closes the sockets; calls in progress are dropped without BYE. */
  async close(): Promise<void> {
    for (const tx of [...this.transactions.values()]) tx.terminate();
    this.responses.clear();
    await this.transports.close();
  }

  private request(
    method: string,
    uri: string,
    trunk: SipTrunkAddress,
    parts: { from: string; to: string; contactUser: string; body: string },
  ): SipRequest {
    return {
      kind: 'request',
      method,
      uri,
      headers: [
        { name: 'via', value: viaValue(this.local, trunk.transport, newBranch()) },
        { name: 'max-forwards', value: '70' },
        { name: 'from', value: parts.from },
        { name: 'to', value: parts.to },
        { name: 'call-id', value: newCallId() },
        { name: 'cseq', value: `1 ${method}` },
        { name: 'contact', value: contactValue(parts.contactUser, this.local, trunk.transport) },
        { name: 'allow', value: ALLOWED_METHODS },
        { name: 'user-agent', value: this.context.userAgent },
        ...(parts.body ? [{ name: 'content-type', value: 'application/sdp' }] : []),
      ],
      body: parts.body,
    };
  }

  private send(message: SipMessage, peer: Peer): void {
    const first =
      message.kind === 'request' ? `${message.method} ${message.uri}` : `${message.status} ${message.reason}`;
    this.logger.debug(
      { to: `${peer.host}:${peer.port}/${peer.transport}`, callId: header(message, 'call-id'), first },
      'sip send',
    );
    this.transports.send(message, peer);
  }

  private startTransaction(request: SipRequest, peer: Peer, user: TransactionUser): ClientTransaction {
    const key = transactionKey(request);
    const tx = new ClientTransaction(
      request,
      peer,
      (r, p) => this.send(r, p),
      this.timers,
      user,
      () => {
        if (this.transactions.get(key) === tx) this.transactions.delete(key);
      },
    );
    this.transactions.set(key, tx);
    tx.start();
    return tx;
  }

  private receive(message: SipMessage, from: Peer): void {
    this.logger.debug(
      {
        from: `${from.host}:${from.port}/${from.transport}`,
        callId: header(message, 'call-id'),
        first: firstLine(message),
        cseq: header(message, 'cseq'),
      },
      'sip receive',
    );
    if (message.kind === 'response') this.receiveResponse(message);
    else if (this.responses.replay(message, (response, peer) => this.send(response, peer))) return;
    else {
      const leg = this.legs.get(header(message, 'call-id') ?? '');
      const toTag = tagOf(header(message, 'to'));
      if (leg && toTag !== null && toTag === leg.localTag) leg.receive(message, from);
      else this.outOfDialog(message, from, toTag);
    }
  }

  private receiveResponse(response: SipResponse): void {
    const tx = this.transactions.get(transactionKey(response));
    if (tx) {
      tx.receive(response);
      return;
    }
    const cseq = parseCSeq(header(response, 'cseq'));
    if (cseq?.method === 'INVITE' && response.status >= 200 && response.status < 300) {
      this.legs.get(header(response, 'call-id') ?? '')?.retransmitted2xx();
    }
  }

  private outOfDialog(request: SipRequest, from: Peer, toTag: string | null): void {
    const answer = (status: number, reason: string): void =>
      this.context.respond(
        request,
        responseTo(request, status, reason, {
          toTag: newTag(),
          headers: [{ name: 'allow', value: ALLOWED_METHODS }],
        }),
        from,
      );
    if (request.method === 'ACK') return;
    if (toTag !== null) answer(481, 'Call/Transaction Does Not Exist');
    else if (request.method === 'OPTIONS') answer(200, 'OK');
    else if (request.method === 'INVITE') answer(603, 'Decline');
    else answer(405, 'Method Not Allowed');
  }

  private connectionLost(peer: Peer, error: Error): void {
    for (const tx of [...this.transactions.values()]) {
      if (tx.peer.transport === 'tcp' && tx.peer.host === peer.host && tx.peer.port === peer.port) {
        tx.transportError(error);
      }
    }
  }
}

function firstLine(message: SipMessage): string {
  return message.kind === 'request'
    ? `${message.method} ${message.uri}`
    : `${message.status} ${message.reason}`;
}

function transactionKey(message: SipMessage): string {
  const branch = parseVia(header(message, 'via'))?.params.get('branch') ?? '';
  const method = parseCSeq(header(message, 'cseq'))?.method ?? '';
  return `${branch}|${method}`;
}

function trunkAddress(trunk: SipTrunk): SipTrunkAddress {
  const verdict = parseSipTrunkUri(trunk.uri);
  if (!verdict.ok) throw new SipConfigError([`uri ${verdict.message}`]);
  return verdict.address;
}

function credentialsOf(trunk: SipTrunk): DigestCredentials | null {
  return trunk.username && trunk.password ? { username: trunk.username, password: trunk.password } : null;
}

async function resolveHost(address: SipTrunkAddress): Promise<Peer> {
  const host = isIP(address.host) ? address.host : (await lookup(address.host)).address;
  return { host, port: address.port, transport: address.transport };
}

async function resolveUri(uri: string, fallback: SipTransport): Promise<Peer> {
  const parsed = parseSipUri(uri);
  if (!parsed) throw new Error(`not a SIP URI: ${uri.slice(0, 100)}`);
  const transport = parsed.params.get('transport')?.toLowerCase();
  return resolveHost({
    host: parsed.host,
    port: parsed.port ?? SIP_DEFAULT_PORT,
    transport: transport === 'tcp' || transport === 'udp' ? transport : fallback,
  });
}
