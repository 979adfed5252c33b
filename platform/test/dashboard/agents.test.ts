import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts';
import { openPage, screenshot } from '../support/browser';
import {
  createAgent,
  PAGE_MS,
  pageWidth,
  signIn as signInWith,
  startDashboardSuite,
  stopDashboardSuite,
} from '../support/dashboard';
import type { TestPlatform } from '../support/harness';
import { api, type Envelope } from '../support/http';
import { pollUntil } from '../support/poll';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

interface AgentBody {
  id: string;
  description: string | null;
  name: string;
  agent_type: string;
  language: string;
  voice: string;
  ai_model: string;
  prompt: string;
  active_prompt_version_id: string | null;
}

/**
 * The agents pages in Chromium against the embedded default: an agent created through the form with
 * choices from the catalogue, a prompt edited into a new version, its diff, a restore, a "call me"
 * test call followed live, and the webhook settings with a test event and a redelivery reaching a
 * real receiver. Screenshots go to SCREENSHOTS (docs/dashboard.md).
 */
describe('dashboard agents pages in Chromium (embedded)', () => {
  let t: TestPlatform;
  let acme: TestAccount;
  let browser: Browser;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    let suite: Awaited<ReturnType<typeof startDashboardSuite>>;
    [suite, receiver] = await Promise.all([startDashboardSuite(), startWebhookReceiver()]);
    ({ t, browser, acme } = suite);
    // One agent with a delivery in its log exists before the pages open, so the phone test stands on its own.
    const riley = await createAgent(t, acme.key, { webhook_config: { url: `${receiver.url}/ok/riley` } });
    const sent = await api(t.url, 'POST', `/v1/agents/${riley}/webhook-test`, { key: acme.key });
    expect(sent.status, sent.text).toBeLessThan(300);
  });
  afterAll(async () => {
    await receiver?.close();
    await stopDashboardSuite({ t, browser });
  });

  async function signIn(page: Page): Promise<void> {
    await signInWith(page, t.url, acme.key);
    await page.getByRole('heading', { name: 'Live calls' }).waitFor();
  }

  async function optionValues(page: Page, label: string): Promise<string[]> {
    return page
      .getByLabel(label, { exact: true })
      .locator('option')
      .evaluateAll((options) => options.map((option) => (option as unknown as { value: string }).value));
  }

  async function catalogue<T>(path: string): Promise<T[]> {
    const answer = await api<Envelope<T[]>>(t.url, 'GET', path, { key: acme.key });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.data;
  }

  async function agentNow(id: string): Promise<AgentBody> {
    const answer = await api<Envelope<AgentBody>>(t.url, 'GET', `/v1/agents/${id}`, { key: acme.key });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.data;
  }

  it('creates an agent, versions its prompt with a diff and a restore, places a test call, and tests its webhook', async () => {
    const { context, page, problems } = await openPage(browser);
    await signIn(page);
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'New agent' }).click();
    await page.getByRole('heading', { name: 'New agent' }).waitFor();

    // Every choice is the catalogue's: the selects offer exactly what discovery lists.
    await pollUntil(
      () => optionValues(page, 'Agent type'),
      (values) => values.length > 0,
      'the agent types never loaded',
      PAGE_MS,
    );
    const languages = await catalogue<{ code: string }>('/v1/voices/languages');
    expect(await optionValues(page, 'Language')).toEqual(languages.map((language) => language.code));
    const models = await catalogue<{ id: string }>('/v1/ai-models');
    expect(await optionValues(page, 'Model')).toEqual(models.map((model) => model.id));
    const industries = await catalogue<{ id: string }>('/v1/industries');
    expect(await optionValues(page, 'Industry')).toEqual(industries.map((industry) => industry.id));

    await page.getByLabel('Name', { exact: true }).fill('Casey');
    await page.getByLabel('Industry').selectOption('healthcare');
    const types = await pollUntil(
      () => optionValues(page, 'Agent type'),
      (values) => values.some((value) => value.includes('health') || value.includes('patient')),
      'the healthcare agent types never loaded',
      PAGE_MS,
    );
    const healthcareTypes = await catalogue<{ id: string }>('/v1/industries/healthcare/agent-types');
    expect(types).toEqual(healthcareTypes.map((type) => type.id));
    const chosenType = types[0] ?? '';
    await page.getByLabel('Agent type').selectOption(chosenType);
    await page.getByLabel('Language').selectOption('es');
    const voices = await optionValues(page, 'Voice');
    expect(voices.length).toBeGreaterThan(0);
    const chosenVoice = voices.at(-1) ?? '';
    await page.getByLabel('Voice').selectOption(chosenVoice);
    await page.getByLabel('Opening line').fill('Hola, soy Casey de Acme Salud.');
    await page.getByLabel('Closing line').fill('¡Gracias, adiós!');
    await screenshot(page, 'agent-new');
    await page.getByRole('button', { name: 'Create agent' }).click();

    await page.getByRole('heading', { name: 'Casey', level: 1 }).waitFor({ timeout: PAGE_MS });
    const agentId = /\/agents\/([0-9a-f-]{36})$/.exec(page.url())?.[1] ?? '';
    expect(agentId).not.toBe('');
    const created = await agentNow(agentId);
    expect(created).toMatchObject({
      name: 'Casey',
      agent_type: chosenType,
      language: 'es',
      voice: chosenVoice,
    });

    // The generated prompt is version 1; an edit saved from the form becomes version 2, active.
    const versions = page.getByTestId('prompt-versions').locator('li');
    await pollUntil(
      () => versions.count(),
      (n) => n === 1,
      'version 1 never showed',
      PAGE_MS,
    );
    const prompt = page.getByRole('textbox', { name: 'Prompt', exact: true });
    expect(await prompt.inputValue()).toBe(created.prompt);
    const added = 'Always confirm the caller’s date of birth before anything else.';
    await prompt.fill(`${created.prompt}\n${added}`);
    await page.getByLabel('Version label (optional)').fill('Confirm identity');
    await page.getByRole('button', { name: 'Save as new version' }).click();
    await pollUntil(
      () => versions.count(),
      (n) => n === 2,
      'version 2 never showed',
      PAGE_MS,
    );
    expect(await page.locator('li[data-version="2"]').getAttribute('data-active')).toBe('true');
    expect((await agentNow(agentId)).prompt).toBe(`${created.prompt}\n${added}`);

    await page.getByRole('button', { name: 'Changes in v2' }).click();
    const diff = page.getByTestId('prompt-diff');
    await diff.waitFor();
    expect(await diff.locator('ins').allTextContents()).toEqual([`added: + ${added}`]);
    expect(await diff.locator('del').count()).toBe(0);
    await screenshot(page, 'agent-prompt-diff');

    await page.getByRole('button', { name: 'Restore v1' }).click();
    await pollUntil(
      () => page.locator('li[data-version="1"]').getAttribute('data-active'),
      (active) => active === 'true',
      'version 1 never became active again',
      PAGE_MS,
    );
    await pollUntil(
      () => prompt.inputValue(),
      (value) => value === created.prompt,
      'the editor kept the edit',
      PAGE_MS,
    );
    expect((await agentNow(agentId)).prompt).toBe(created.prompt);

    // The settings form edits the agent in place.
    await page.getByLabel('Description (optional)').fill('Confirms patient appointments.');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Saved.').waitFor({ timeout: PAGE_MS });
    expect(await agentNow(agentId)).toMatchObject({
      name: 'Casey',
      agent_type: chosenType,
      voice: chosenVoice,
      description: 'Confirms patient appointments.',
    });

    // "Call me": a real call of this agent, shown live from placed to completed.
    await page.getByLabel('Your phone number').fill('+14155551234');
    await page.getByLabel('Call from').fill('+14155550100');
    await page.getByRole('button', { name: 'Call me' }).click();
    const callRow = page.getByTestId('test-calls').locator('li').first();
    const callId = await pollUntil(
      async () => ((await callRow.count()) > 0 ? await callRow.getAttribute('data-call-id') : null),
      (id) => Boolean(id),
      'the test call never showed',
      PAGE_MS,
    );
    await pollUntil(
      () => callRow.getAttribute('data-status'),
      (status) => status === 'COMPLETED',
      'the test call never showed completed',
      PAGE_MS,
    );
    const call = await api<Envelope<{ agent_id: string; phone_number: string }>>(
      t.url,
      'GET',
      `/v1/calls/${callId}`,
      { key: acme.key },
    );
    expect(call.status, call.text).toBe(200);
    expect(call.body.data).toMatchObject({ agent_id: agentId, phone_number: '+14155551234' });
    await screenshot(page, 'agent-page');

    // Webhook settings: a URL on a real receiver, a test event, its delivery in the log, a redelivery.
    await page.getByRole('link', { name: 'Webhook settings' }).click();
    await page.getByRole('heading', { name: 'Webhook settings' }).waitFor();
    await page.getByLabel('Webhook URL').fill(`${receiver.url}/ok/agents-page`);
    await page.getByRole('button', { name: 'Save webhook' }).click();
    await page.getByText('Webhook saved.').waitFor({ timeout: PAGE_MS });
    await page.getByRole('button', { name: 'Send test event' }).click();
    await pollUntil(
      async () => receiver.requestsTo('/ok/agents-page').length,
      (n) => n >= 1,
      'the test event never reached the receiver',
      PAGE_MS,
    );
    const testRow = page.locator('tr[data-delivery-id]', { hasText: '(test)' }).first();
    await pollUntil(
      async () => ((await testRow.count()) > 0 ? await testRow.getAttribute('data-status') : null),
      (status) => status === 'SUCCEEDED',
      'the test delivery never showed succeeded in the log',
      PAGE_MS,
    );
    expect(await testRow.locator('td').nth(3).textContent()).toBe('200');
    const before = receiver.requestsTo('/ok/agents-page').length;
    const rowsBefore = await page.locator('tr[data-delivery-id]').count();
    await testRow.getByRole('button', { name: /Redeliver/ }).click();
    await pollUntil(
      async () => receiver.requestsTo('/ok/agents-page').length,
      (n) => n > before,
      'the redelivery never reached the receiver',
      PAGE_MS,
    );
    await pollUntil(
      () => page.locator('tr[data-delivery-id]', { hasText: '(redelivery)' }).count(),
      (n) => n >= 1,
      'the redelivery never showed in the log',
      PAGE_MS,
    );
    expect(await page.locator('tr[data-delivery-id]').count()).toBeGreaterThan(rowsBefore);
    await screenshot(page, 'agent-webhook');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('lists the agents and fits a phone-sized screen, by keyboard', async () => {
    const { context, page, problems } = await openPage(browser, { width: 375, height: 740 });
    await signIn(page);
    await page.goto(`${t.url}/dashboard/agents`);
    await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();
    const riley = page.getByRole('link', { name: 'Riley' });
    await riley.waitFor({ timeout: PAGE_MS });
    await riley.focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('agent-page').waitFor();
    await page.getByRole('heading', { name: 'Prompt versions' }).waitFor({ timeout: PAGE_MS });
    expect(await pageWidth(page)).toBeLessThanOrEqual(375);
    await screenshot(page, 'agent-page-phone');
    await page.getByRole('link', { name: 'Webhook settings' }).click();
    await page.getByTestId('delivery-log').waitFor({ timeout: PAGE_MS });
    expect(await pageWidth(page)).toBeLessThanOrEqual(375);
    await screenshot(page, 'agent-webhook-phone');
    expect(problems).toEqual([]);
    await context.close();
  });
});
