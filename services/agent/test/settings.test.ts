import { describe, expect, it } from 'vitest';
import { decidePrompt, generatedPromptFor, type PromptInputs } from '../src/domain/agent-prompt';
import { defaultVoiceFor, resolveSettings, settingsIssues, speaks } from '../src/domain/agent-settings';
import { Catalogue } from '../src/domain/catalogue/index';

describe('speaks', () => {
  it('takes the exact code, the bare base code, or any region for a bare language', () => {
    expect(speaks(['pt-PT'], 'pt-PT')).toBe(true);
    expect(speaks(['es'], 'es-MX')).toBe(true);
    expect(speaks(['es-MX'], 'es')).toBe(true);
    expect(speaks(['en-GB', 'en'], 'en-AU')).toBe(true);
  });

  it('never lets one region stand in for another', () => {
    expect(speaks(['pt-BR'], 'pt-PT')).toBe(false);
    expect(speaks(['en-GB'], 'en-AU')).toBe(false);
    expect(speaks(['es-MX'], 'es-ES')).toBe(false);
    expect(speaks(['fr'], 'de')).toBe(false);
  });
});

describe('defaultVoiceFor', () => {
  it('gives every catalogue language a voice that speaks it, listing it exactly when one does', () => {
    const voices = Catalogue.listVoices();
    for (const { code } of Catalogue.listLanguages()) {
      const voice = defaultVoiceFor(code);
      expect(voice, code).toBeDefined();
      expect(speaks(voice!.languages, code), code).toBe(true);
      if (voices.some((v) => v.languages.includes(code))) expect(voice!.languages, code).toContain(code);
    }
  });

  it('prefers the catalogue default when it lists the code, a regional voice otherwise', () => {
    const preferred = Catalogue.defaultVoice();
    expect(defaultVoiceFor('en')?.id).toBe(preferred.id);
    expect(defaultVoiceFor('es')?.id).toBe(preferred.id);
    for (const code of ['pt-PT', 'fr-CA', 'es-MX', 'en-IN', 'en-AU', 'en-GB']) {
      expect(defaultVoiceFor(code)?.id, code).not.toBe(preferred.id);
      expect(defaultVoiceFor(code)?.languages, code).toContain(code);
    }
  });
});

describe('resolveSettings on update', () => {
  const current = { agent_type: 'custom', industry: null, language: 'en', voice: 'jenny', ai_model: '' };
  current.ai_model = Catalogue.defaultModel().id;

  it('moves to a voice of a new language sent alone; refuses an incompatible voice sent', () => {
    const moved = resolveSettings({ language: 'ja' }, current);
    expect(moved.ok && moved.settings.language).toBe('ja');
    expect(moved.ok && Catalogue.findVoice(moved.settings.voice)?.languages).toContain('ja');
    const refused = resolveSettings({ language: 'ja', voice: 'jenny' }, current);
    expect(refused.ok ? [] : refused.issues.map((i) => i.loc.join('.'))).toEqual(['body.voice']);
  });

  it('keeps a voice that is not judged: neither it nor the language was sent', () => {
    const stored = { ...current, language: 'pt-PT', voice: 'aria' };
    const kept = resolveSettings({ ai_model: stored.ai_model }, stored);
    expect(kept.ok && kept.settings.voice).toBe('aria');
  });
});

describe('settingsIssues', () => {
  it('on update, judges the voice against the language only when both are sent', () => {
    expect(settingsIssues({ voice: 'nanami' }, 'update')).toEqual([]);
    expect(settingsIssues({ voice: 'nanami', language: 'de' }, 'update').map((i) => i.loc)).toEqual([
      ['body', 'voice'],
    ]);
    expect(settingsIssues({ agent_type: 'astronaut', ai_model: 'x' }, 'update').map((i) => i.loc)).toEqual([
      ['body', 'agent_type'],
      ['body', 'ai_model'],
    ]);
  });

  it('on create, fills in the defaults (en) first', () => {
    expect(settingsIssues({ voice: 'nanami' }, 'create').map((i) => i.loc)).toEqual([['body', 'voice']]);
    expect(settingsIssues({}, 'create')).toEqual([]);
  });
});

describe('decidePrompt', () => {
  const inputs: PromptInputs = {
    agent_type: 'sales',
    language: 'en',
    name: 'Riley',
    description: null,
    start_flow: 'Hi.',
    end_flow: 'Bye.',
  };

  it('leaves a generated prompt as it is until one of its inputs changes', () => {
    const current = { prompt: 'Restored snapshot.', prompt_source: 'generated' as const, inputs };
    expect(decidePrompt(undefined, current, { ...inputs })).toEqual({
      prompt: 'Restored snapshot.',
      prompt_source: 'generated',
    });
    const changed = { ...inputs, language: 'fr' };
    expect(decidePrompt(undefined, current, changed)).toEqual({
      prompt: generatedPromptFor(changed),
      prompt_source: 'generated',
    });
  });

  it('keeps a custom prompt through input changes; null goes back to generated', () => {
    const current = { prompt: 'Mine.', prompt_source: 'custom' as const, inputs };
    expect(decidePrompt(undefined, current, { ...inputs, name: 'Sam' }).prompt).toBe('Mine.');
    expect(decidePrompt(null, current, inputs)).toEqual({
      prompt: generatedPromptFor(inputs),
      prompt_source: 'generated',
    });
  });
});
