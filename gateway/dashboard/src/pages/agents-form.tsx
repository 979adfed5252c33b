import { useEffect, useState } from 'preact/hooks';
import { ErrorNote, FormActions } from '../ui';
import { type AgentType, type Catalogue, loadAgentTypes, loadCatalogue, speaks } from './agents-catalogue';

/** The settings the form edits, as the GraphQL inputs name them. */
export interface AgentSettings {
  name: string;
  agentType: string;
  language: string;
  voice: string;
  aiModel: string;
  startFlow: string;
  endFlow: string;
  description: string;
}

export const EMPTY_SETTINGS: AgentSettings = {
  name: '',
  agentType: '',
  language: '',
  voice: '',
  aiModel: '',
  startFlow: '',
  endFlow: '',
  description: '',
};

/** The form's settings out of an agent record (which carries more than the form edits). */
export function settingsOf(record: { [K in keyof AgentSettings]: string | null }): AgentSettings {
  const settings = { ...EMPTY_SETTINGS };
  for (const field of Object.keys(EMPTY_SETTINGS) as (keyof AgentSettings)[]) {
    settings[field] = record[field] ?? '';
  }
  return settings;
}

/** Only the fields a user filled: empty optional strings are left for the server's defaults. */
export function settingsInput(settings: AgentSettings): Record<string, string> {
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== ''));
}

/**
 * An agent's settings; every choice (industry, type, language, voice, model) comes from the
 * discovery catalogue, so the form offers exactly what the server accepts.
 */
export function AgentForm(props: {
  initial: AgentSettings;
  industry?: string | null;
  submitLabel: string;
  onSubmit: (settings: AgentSettings) => Promise<void>;
}) {
  const [settings, setSettings] = useState<AgentSettings>(props.initial);
  const [catalogue, setCatalogue] = useState<Catalogue>();
  const [industry, setIndustry] = useState('');
  const [types, setTypes] = useState<AgentType[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [saved, setSaved] = useState<string>();

  useEffect(() => {
    loadCatalogue()
      .then((loaded) => {
        setCatalogue(loaded);
        const known = loaded.industries.find((i) => i.id === props.industry || i.name === props.industry);
        setIndustry(known?.id ?? loaded.industries[0]?.id ?? '');
        setSettings((now) => ({
          ...now,
          language: now.language || (loaded.languages[0]?.code ?? ''),
          aiModel: now.aiModel || (loaded.aiModels.find((m) => m.default) ?? loaded.aiModels[0])?.id || '',
        }));
      })
      .catch((cause: Error) => setError(cause.message));
  }, []);

  useEffect(() => {
    if (!industry) return;
    loadAgentTypes(industry)
      .then((loaded) => {
        setTypes(loaded);
        setSettings((now) =>
          loaded.some((type) => type.id === now.agentType) ? now : { ...now, agentType: loaded[0]?.id ?? '' },
        );
      })
      .catch((cause: Error) => setError(cause.message));
  }, [industry]);

  const voices = catalogue?.voices.filter((voice) => speaks(voice.languages, settings.language)) ?? [];
  useEffect(() => {
    if (!catalogue || voices.some((voice) => voice.id === settings.voice)) return;
    const fallback = voices.find((voice) => voice.default) ?? voices[0];
    setSettings((now) => ({ ...now, voice: fallback?.id ?? '' }));
  }, [catalogue, settings.language]);

  const set = (field: keyof AgentSettings) => (event: Event) => {
    const value = (event.currentTarget as HTMLInputElement).value;
    setSettings((now) => ({ ...now, [field]: value }));
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setSaved(undefined);
    try {
      await props.onSubmit(settings);
      setSaved('Saved.');
    } catch (cause) {
      setError((cause as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="agent-form" onSubmit={submit} aria-busy={!catalogue}>
      <ErrorNote message={error} />
      <div class="field">
        <label for="agent-name">Name</label>
        <input id="agent-name" required maxLength={100} value={settings.name} onInput={set('name')} />
      </div>
      <div class="field">
        <label for="agent-industry">Industry</label>
        <select
          id="agent-industry"
          value={industry}
          onChange={(event) => setIndustry(event.currentTarget.value)}
          disabled={!catalogue}
        >
          {catalogue?.industries.map((item) => (
            <option key={item.id} value={item.id}>
              {item.name}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="agent-agent-type">Agent type</label>
        <select
          id="agent-agent-type"
          value={settings.agentType}
          onChange={set('agentType')}
          disabled={types.length === 0}
        >
          {types.map((type) => (
            <option key={type.id} value={type.id}>
              {type.name}
              {type.category === 'GENERAL' ? ' (general)' : ''}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="agent-language">Language</label>
        <select
          id="agent-language"
          value={settings.language}
          onChange={set('language')}
          disabled={!catalogue}
        >
          {catalogue?.languages.map((language) => (
            <option key={language.code} value={language.code}>
              {language.name}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="agent-voice">Voice</label>
        <select
          id="agent-voice"
          value={settings.voice}
          onChange={set('voice')}
          disabled={voices.length === 0}
        >
          {voices.map((voice) => (
            <option key={voice.id} value={voice.id}>
              {voice.name} ({voice.gender.toLowerCase()}, {voice.accent})
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="agent-model">Model</label>
        <select id="agent-model" value={settings.aiModel} onChange={set('aiModel')} disabled={!catalogue}>
          {catalogue?.aiModels.map((model) => (
            <option key={model.id} value={model.id}>
              {model.name} ({model.provider})
            </option>
          ))}
        </select>
      </div>
      <div class="field wide">
        <label for="agent-opening-line">Opening line</label>
        <input
          id="agent-opening-line"
          required
          maxLength={1000}
          value={settings.startFlow}
          onInput={set('startFlow')}
        />
      </div>
      <div class="field wide">
        <label for="agent-closing-line">Closing line</label>
        <input
          id="agent-closing-line"
          required
          maxLength={1000}
          value={settings.endFlow}
          onInput={set('endFlow')}
        />
      </div>
      <div class="field wide">
        <label for="agent-description-optional">Description (optional)</label>
        <input
          id="agent-description-optional"
          maxLength={1000}
          value={settings.description}
          onInput={set('description')}
        />
      </div>
      <FormActions
        busy={busy}
        disabled={!catalogue || !settings.agentType}
        label={props.submitLabel}
        saved={saved}
        wide
      />
    </form>
  );
}
