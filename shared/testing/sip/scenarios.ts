// sipp scenarios for the far ends the SIP tests need. sipp fills [keywords] in; a message's lines
// are joined with CRLF by sipp itself.

const SDP = `v=0
o=sipp 1 1 IN IP[local_ip_type] [local_ip]
s=-
c=IN IP[media_ip_type] [media_ip]
t=0 0
m=audio [media_port] RTP/AVP 0
a=rtpmap:0 PCMU/8000`;

const wrap = (body: string): string =>
  `<?xml version="1.0" encoding="ISO-8859-1" ?>\n<scenario name="test">\n${body}\n</scenario>\n`;

/** A response to the last request received (INVITE unless `cseq` says otherwise). */
function response(status: string, options: { sdp?: boolean; cseq?: string; contact?: boolean } = {}): string {
  const lines = [
    `SIP/2.0 ${status}`,
    '[last_Via:]',
    '[last_From:]',
    '[last_To:];tag=[pid]SIPpTag01[call_number]',
    '[last_Call-ID:]',
    options.cseq ?? '[last_CSeq:]',
  ];
  if (options.contact) lines.push('Contact: <sip:far@[local_ip]:[local_port];transport=[transport]>');
  if (options.sdp) lines.push('Content-Type: application/sdp', 'Content-Length: [len]', '', SDP);
  else lines.push('Content-Length: 0', '');
  return `  <send><![CDATA[\n${lines.join('\n')}\n]]></send>`;
}

const recv = (request: string, extra = ''): string => `  <recv request="${request}"${extra}/>`;
const recvInvite = (): string =>
  `  <recv request="INVITE"><action><ereg regexp="[0-9]+" search_in="hdr" header="CSeq:" assign_to="invite_cseq"/></action></recv>`;

/** Rings (100, 180), then answers every INVITE with a final failure; expects our ACK. */
export function rejectScenario(status: string): string {
  return wrap(
    [recv('INVITE'), response('100 Trying'), response('180 Ringing'), response(status), recv('ACK')].join(
      '\n',
    ),
  );
}

/** Rings with early media (183 with SDP) until our CANCEL, then 200 to it and 487 to the INVITE. */
export function ringUntilCancelScenario(): string {
  return wrap(
    [
      recvInvite(),
      response('100 Trying'),
      response('183 Session Progress', { sdp: true }),
      recv('CANCEL'),
      response('200 OK'),
      response('487 Request Terminated', { cseq: 'CSeq: [$invite_cseq] INVITE' }),
      recv('ACK'),
    ].join('\n'),
  );
}

/**
 * Challenges the INVITE (401 WWW-Authenticate or 407 Proxy-Authenticate), then checks the retried
 * INVITE's credentials: 200 when they are right, 403 when not. sipp's verifyauth checks the
 * Authorization header; for 407 the header's presence and user name are checked.
 */
export function digestScenario(kind: 401 | 407, username: string, password: string): string {
  const challenge = kind === 401 ? 'WWW-Authenticate' : 'Proxy-Authenticate';
  const reason = kind === 401 ? 'Unauthorized' : 'Proxy Authentication Required';
  const credentialsHeader = kind === 401 ? 'Authorization:' : 'Proxy-Authorization:';
  const check =
    kind === 401
      ? `<verifyauth assign_to="auth_ok" username="${username}" password="${password}"/>`
      : `<ereg regexp="Digest .*username=.${username}.*qop=auth" search_in="hdr" header="${credentialsHeader}" assign_to="auth_ok"/>`;
  const challengeResponse = [
    `SIP/2.0 ${kind} ${reason}`,
    '[last_Via:]',
    '[last_From:]',
    '[last_To:];tag=[pid]SIPpTag01[call_number]',
    '[last_Call-ID:]',
    '[last_CSeq:]',
    `${challenge}: Digest realm="sipp.test", nonce="4f2a9c1b7d", qop="auth", algorithm=MD5, opaque="op1"`,
    'Content-Length: 0',
    '',
  ].join('\n');
  return wrap(
    [
      recv('INVITE'),
      `  <send><![CDATA[\n${challengeResponse}\n]]></send>`,
      recv('ACK'),
      `  <recv request="INVITE"><action>${check}</action></recv>`,
      '  <nop test="auth_ok" next="good"/>',
      response('403 Forbidden'),
      recv('ACK'),
      '  <nop next="end"/>',
      '  <label id="good"/>',
      response('200 OK', { sdp: true, contact: true }),
      recv('ACK'),
      recv('BYE'),
      response('200 OK'),
      '  <label id="end"/>',
    ].join('\n'),
  );
}

/** Answers (with or without SDP) and waits for our BYE. */
export function answerScenario(options: { sdp: boolean }): string {
  return wrap(
    [
      recv('INVITE'),
      response('180 Ringing'),
      response('200 OK', { sdp: options.sdp, contact: true }),
      recv('ACK'),
      recv('BYE'),
      response('200 OK'),
    ].join('\n'),
  );
}

/** Answers, then sends a re-INVITE (expects 200 with SDP, ACKs it) and hangs up with BYE. */
export function farEndHangsUpScenario(options: { reInvite: boolean }): string {
  const inDialog = (method: string, cseq: number, body: boolean): string => {
    const lines = [
      `${method} [next_url] SIP/2.0`,
      'Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]',
      'From: <sip:far@[local_ip]:[local_port]>;tag=[pid]SIPpTag01[call_number]',
      'To: [$caller]',
      '[last_Call-ID:]',
      `CSeq: ${cseq} ${method}`,
      'Contact: <sip:far@[local_ip]:[local_port];transport=[transport]>',
      'Max-Forwards: 70',
    ];
    if (body) lines.push('Content-Type: application/sdp', 'Content-Length: [len]', '', SDP);
    else lines.push('Content-Length: 0', '');
    return `  <send><![CDATA[\n${lines.join('\n')}\n]]></send>`;
  };
  const reInvite = options.reInvite
    ? [
        inDialog('INVITE', 1, true),
        '  <recv response="200"><action><ereg regexp="m=audio" search_in="body" check_it="true" assign_to="our_sdp"/></action></recv>',
        '  <Reference variables="our_sdp"/>',
        `  <send><![CDATA[\nACK [next_url] SIP/2.0\nVia: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]\nFrom: <sip:far@[local_ip]:[local_port]>;tag=[pid]SIPpTag01[call_number]\nTo: [$caller]\n[last_Call-ID:]\nCSeq: 1 ACK\nMax-Forwards: 70\nContent-Length: 0\n\n]]></send>`,
      ]
    : [];
  return wrap(
    [
      `  <recv request="INVITE" rrs="true"><action><ereg regexp=".*" search_in="hdr" header="From:" assign_to="caller"/></action></recv>`,
      response('180 Ringing'),
      response('200 OK', { sdp: true, contact: true }),
      recv('ACK'),
      ...reInvite,
      inDialog('BYE', 2, false),
      '  <recv response="200"/>',
    ].join('\n'),
  );
}

/** Answers one OPTIONS ping with `status`. */
export function optionsScenario(status: string): string {
  return wrap([recv('OPTIONS'), response(status)].join('\n'));
}

/**
 * `scenario` that also answers an OPTIONS keep-alive with 200: a platform's telephony service pings
 * every trunk, and sipp starts the scenario afresh for each new Call-ID, so the ping must fit it.
 */
export function withKeepAlive(scenario: string): string {
  const start = scenario.indexOf('<scenario name="test">\n') + '<scenario name="test">\n'.length;
  const end = scenario.lastIndexOf('</scenario>');
  return [
    scenario.slice(0, start),
    '  <recv request="OPTIONS" optional="true" next="keepalive"/>\n',
    scenario.slice(start, end),
    '  <nop next="done"/>\n  <label id="keepalive"/>\n',
    response('200 OK'),
    '\n  <label id="done"/>\n',
    scenario.slice(end),
  ].join('');
}

/**
 * Calls `-s <user>` at sipp's last argument (host:port), offering PCMU at `[media_port]`, ACKs the
 * answer, then waits for the far end's BYE. With `-rtp_echo -mp <port>` sipp sends back what it
 * hears, so the far end hears itself: a caller that needs no audio of its own.
 */
export function callAndWaitForByeScenario(): string {
  const request = (method: string, extra: string[]) =>
    [
      `${method} sip:[service]@[remote_ip]:[remote_port] SIP/2.0`,
      'Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]',
      'From: <sip:caller@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]',
      `To: <sip:[service]@[remote_ip]:[remote_port]>${method === 'ACK' ? '[peer_tag_param]' : ''}`,
      'Call-ID: [call_id]',
      `CSeq: 1 ${method}`,
      'Contact: <sip:caller@[local_ip]:[local_port]>',
      'Max-Forwards: 70',
      ...extra,
    ].join('\n');
  const invite = request('INVITE', ['Content-Type: application/sdp', 'Content-Length: [len]', '', SDP]);
  const ack = request('ACK', ['Content-Length: 0', '']);
  return wrap(
    [
      `  <send retrans="500"><![CDATA[\n${invite}\n]]></send>`,
      '  <recv response="100" optional="true"/>',
      '  <recv response="180" optional="true"/>',
      '  <recv response="183" optional="true"/>',
      '  <recv response="200" rtd="true"/>',
      `  <send><![CDATA[\n${ack}\n]]></send>`,
      recv('BYE'),
      response('200 OK'),
    ].join('\n'),
  );
}
