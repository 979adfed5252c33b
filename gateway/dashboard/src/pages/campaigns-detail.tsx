import { useEffect, useRef, useState } from 'preact/hooks';
import { gql } from '../api';
import { dateTime, label } from '../format';
import { subscribe } from '../live';
import { ErrorNote, Link, Loading, NotFound, StatusBadge } from '../ui';
import { CampaignContacts } from './campaigns-contacts';
import { CampaignEdit } from './campaigns-edit';
import { CAMPAIGN_FIELDS, type Campaign, duration, etaSeconds, FINAL_CAMPAIGN } from './campaigns-model';
import { ProgressBar } from './campaigns-ui';

const GET = `query Campaign($id: ID!) { campaign(id: $id) { ${CAMPAIGN_FIELDS} } }`;
const LIVE = `subscription Campaign($id: ID!) { campaignProgress(campaignId: $id) { ${CAMPAIGN_FIELDS} } }`;
const MOVE = (kind: string) => `mutation Move($id: ID!) { ${kind}Campaign(id: $id) { ${CAMPAIGN_FIELDS} } }`;

type Move = 'pause' | 'resume' | 'cancel';

/** One campaign: its progress live (campaignProgress), its controls, its settings and its contacts. */
export function CampaignDetail(props: { id: string }) {
  const [campaign, setCampaign] = useState<Campaign | null>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState<Move>();
  const [confirming, setConfirming] = useState(false);
  const [now, setNow] = useState(Date.now());
  const liveSeen = useRef(false);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const keepButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    setCampaign(undefined);
    liveSeen.current = false;
    const stop = subscribe<{ campaignProgress: Campaign }>(
      LIVE,
      { id: props.id },
      (data) => {
        liveSeen.current = true;
        setCampaign(data.campaignProgress);
      },
      setError,
    );
    gql<{ campaign: Campaign | null }>(GET, { id: props.id })
      // A live update that came first is newer than this answer.
      .then((data) => liveSeen.current || setCampaign(data.campaign))
      .catch((cause: Error) => setError(cause.message));
    return stop;
  }, [props.id]);

  // The question takes the focus (on its safe answer) and gives it back when it closes.
  const wasConfirming = useRef(false);
  useEffect(() => {
    if (confirming) keepButton.current?.focus();
    else if (wasConfirming.current) cancelButton.current?.focus();
    wasConfirming.current = confirming;
  }, [confirming]);

  // The ETA is judged against the clock, so it moves on between updates too.
  const running = campaign?.status === 'RUNNING';
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 5000);
    return () => clearInterval(timer);
  }, [running]);

  const move = async (kind: Move) => {
    setBusy(kind);
    setError(undefined);
    try {
      const data = await gql<Record<string, Campaign>>(MOVE(kind), { id: props.id });
      const moved = data[`${kind}Campaign`];
      if (moved) setCampaign(moved);
    } catch (cause) {
      setError((cause as Error).message);
    } finally {
      setBusy(undefined);
      setConfirming(false);
    }
  };

  if (campaign === null) {
    return (
      <NotFound title="Campaign not found">
        There is no campaign {props.id} in this account. <Link to="/campaigns">Back to the campaigns</Link>
      </NotFound>
    );
  }
  if (!campaign) return <Loading error={error} />;

  const { counts, status } = campaign;
  const open = !FINAL_CAMPAIGN.has(status);
  const eta = etaSeconds(campaign, Math.max(now, Date.now()));
  return (
    <section aria-labelledby="campaign-title" data-testid="campaign-page" data-status={status}>
      <p>
        <Link to="/campaigns">← Campaigns</Link>
      </p>
      <div class="title-row">
        <h1 id="campaign-title">{campaign.name}</h1>
        <span role="status" data-testid="campaign-status">
          <StatusBadge status={status} />
        </span>
      </div>
      <ErrorNote message={error} />
      <div class="cards">
        <article class="card wide" aria-labelledby="progress-title">
          <h2 id="progress-title">Progress</h2>
          <ProgressBar counts={counts} label="Contacts done" />
          <dl class="figures">
            <dt>Calls in flight</dt>
            <dd data-testid="in-flight">
              {counts.inProgress} of at most {campaign.maxConcurrentCalls}
            </dd>
            <dt>Time left</dt>
            <dd data-testid="eta">{etaText(campaign, eta)}</dd>
          </dl>
          <div class="form-actions">
            <button type="button" disabled={status !== 'RUNNING' || !!busy} onClick={() => move('pause')}>
              {busy === 'pause' ? 'Pausing…' : 'Pause'}
            </button>
            <button type="button" disabled={status !== 'PAUSED' || !!busy} onClick={() => move('resume')}>
              {busy === 'resume' ? 'Resuming…' : 'Resume'}
            </button>
            <button
              ref={cancelButton}
              type="button"
              class="danger"
              aria-expanded={confirming}
              disabled={!open || !!busy}
              onClick={() => setConfirming(true)}
            >
              Cancel campaign
            </button>
          </div>
          {confirming ? (
            <div
              class="confirm"
              role="alertdialog"
              aria-labelledby="confirm-title"
              aria-modal="false"
              onKeyDown={(event) => event.key === 'Escape' && setConfirming(false)}
            >
              <p id="confirm-title">
                Cancel “{campaign.name}”? Contacts not yet called are cancelled; calls under way finish. This
                cannot be undone.
              </p>
              <div class="form-actions">
                <button type="button" class="danger" disabled={!!busy} onClick={() => move('cancel')}>
                  {busy === 'cancel' ? 'Cancelling…' : 'Yes, cancel it'}
                </button>
                <button ref={keepButton} type="button" class="quiet" onClick={() => setConfirming(false)}>
                  Keep it
                </button>
              </div>
            </div>
          ) : null}
        </article>
        <article class="card" aria-labelledby="facts-title">
          <h2 id="facts-title">Campaign</h2>
          <dl>
            <dt>Agent</dt>
            <dd>
              {campaign.agent ? (
                <Link to={`/agents/${campaign.agentId}`}>{campaign.agent.name}</Link>
              ) : (
                'deleted'
              )}
            </dd>
            <dt>Calls from</dt>
            <dd>{campaign.phoneNumber}</dd>
            <dt>Phone column</dt>
            <dd>
              <code>{campaign.phoneColumn}</code>
            </dd>
            <dt>Calling window</dt>
            <dd data-testid="calling-window">
              {campaign.callingWindow
                ? `${campaign.callingWindow.days.map(label).join(', ')} ${campaign.callingWindow.start}–${campaign.callingWindow.end} (${campaign.callingWindow.timezone})`
                : 'any time'}
            </dd>
            <dt>Created</dt>
            <dd>{dateTime(campaign.createdAt)}</dd>
            <dt>Started</dt>
            <dd>{dateTime(campaign.startedAt ?? campaign.startAt)}</dd>
            <dt>Finished</dt>
            <dd>{dateTime(campaign.finishedAt)}</dd>
          </dl>
          {campaign.failureReason ? <p class="error">{campaign.failureReason}</p> : null}
          <p>
            <Link to={`/calls?campaign=${campaign.id}`}>Its calls on the live board</Link>
          </p>
        </article>
        {open ? <CampaignEdit campaign={campaign} onSaved={setCampaign} /> : null}
        <CampaignContacts campaign={campaign} />
      </div>
    </section>
  );
}

function etaText(campaign: Campaign, eta: number | undefined): string {
  if (campaign.status === 'COMPLETED' || campaign.status === 'CANCELLED') {
    return `finished ${dateTime(campaign.finishedAt)}`;
  }
  if (campaign.status === 'PAUSED') return 'paused';
  if (campaign.status === 'PREPARING') return 'preparing the contact list';
  if (campaign.status !== 'RUNNING') return `starts ${dateTime(campaign.startAt)}`;
  if (eta === undefined) return 'estimating (after the first calls end)';
  return `about ${duration(eta)}`;
}
