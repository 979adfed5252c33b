// Which local engine voice speaks an agent's (voice, language): decisions as data, no I/O.

/** The local speech engines (Debian packages `espeak-ng` and `flite`). */
export type LocalEngine = 'espeak-ng' | 'flite';

/** One way to speak: an engine and its voice (`en-us+f2` for espeak-ng, `slt` for flite). */
export interface EngineVoice {
  engine: LocalEngine;
  voice: string;
}

/** The engines to try for a (voice, language), best first: the next one speaks when one fails. */
export interface VoicePlan {
  /** The language as asked, for error messages. */
  language: string;
  attempts: EngineVoice[];
}

export type Gender = 'female' | 'male' | 'neutral';

interface AgentVoice {
  gender: Gender;
  /** espeak-ng voice for a bare language code by the voice's accent (`en` for a British voice: en-gb). */
  dialect?: Readonly<Record<string, string>>;
  /** flite voice when it speaks English. */
  flite: string;
}

const AMERICAN = { en: 'en-us' };
// espeak-ng 1.51 has no Australian or Indian English: British is the nearest (non-rhotic).
const BRITISH = { en: 'en-gb' };
const MEXICAN = { es: 'es-419' };

// The agent's voice ids, copied from services/agent/src/domain/catalogue/voices.ts (services do not
// import each other): keep in step with it. Gender picks the espeak-ng variant; flite has one US
// female (slt), a US male (rms) and a Scottish male (awb, the nearest to British).
const AGENT_VOICES: Readonly<Record<string, AgentVoice>> = {
  aria: { gender: 'female', dialect: AMERICAN, flite: 'slt' },
  roger: { gender: 'male', dialect: AMERICAN, flite: 'rms' },
  river: { gender: 'neutral', dialect: AMERICAN, flite: 'slt' },
  jenny: { gender: 'female', dialect: AMERICAN, flite: 'slt' },
  davis: { gender: 'male', dialect: AMERICAN, flite: 'rms' },
  sonia: { gender: 'female', dialect: BRITISH, flite: 'slt' },
  ryan: { gender: 'male', dialect: BRITISH, flite: 'awb' },
  natasha: { gender: 'female', dialect: BRITISH, flite: 'slt' },
  neerja: { gender: 'female', dialect: BRITISH, flite: 'slt' },
  madhur: { gender: 'male', dialect: BRITISH, flite: 'awb' },
  elvira: { gender: 'female', flite: 'slt' },
  jorge: { gender: 'male', dialect: MEXICAN, flite: 'rms' },
  dalia: { gender: 'female', dialect: MEXICAN, flite: 'slt' },
  denise: { gender: 'female', flite: 'slt' },
  sylvie: { gender: 'female', flite: 'slt' },
  katja: { gender: 'female', flite: 'slt' },
  lukas: { gender: 'male', flite: 'rms' },
  isabella: { gender: 'female', flite: 'slt' },
  francisca: { gender: 'female', flite: 'slt' },
  raquel: { gender: 'female', flite: 'slt' },
  fenna: { gender: 'female', flite: 'slt' },
  zofia: { gender: 'female', flite: 'slt' },
  hillevi: { gender: 'female', flite: 'slt' },
  christel: { gender: 'female', flite: 'slt' },
  dmitry: { gender: 'male', flite: 'rms' },
  emel: { gender: 'female', flite: 'slt' },
  zariyah: { gender: 'female', flite: 'slt' },
  nanami: { gender: 'female', flite: 'slt' },
  sunhi: { gender: 'female', flite: 'slt' },
  xiaoxiao: { gender: 'female', flite: 'slt' },
  hoaimy: { gender: 'female', flite: 'slt' },
  gadis: { gender: 'female', flite: 'slt' },
};

/** espeak-ng variants by gender; a neutral voice keeps the language's own voice. */
const VARIANTS: Readonly<Record<Gender, string>> = { female: '+f2', male: '+m3', neutral: '' };

// The agent's language codes (services/agent/src/domain/catalogue/languages.ts), lower case, and a
// few common neighbours, to the espeak-ng 1.51 voice that speaks them. A code not here goes to
// espeak-ng as it is (then its primary subtag): the engine says when it has no such voice.
const ESPEAK_LANGUAGES: Readonly<Record<string, string>> = {
  en: 'en-us',
  'en-us': 'en-us',
  'en-gb': 'en-gb',
  'en-au': 'en-gb',
  'en-in': 'en-gb',
  es: 'es',
  'es-es': 'es',
  'es-mx': 'es-419',
  'es-419': 'es-419',
  'es-us': 'es-419',
  fr: 'fr-fr',
  'fr-fr': 'fr-fr',
  'fr-ca': 'fr-fr',
  de: 'de',
  it: 'it',
  pt: 'pt',
  'pt-pt': 'pt',
  'pt-br': 'pt-br',
  nl: 'nl',
  pl: 'pl',
  sv: 'sv',
  da: 'da',
  ru: 'ru',
  tr: 'tr',
  ar: 'ar',
  hi: 'hi',
  ja: 'ja',
  ko: 'ko',
  zh: 'cmn',
  'zh-cn': 'cmn',
  vi: 'vi',
  id: 'id',
};

/** Languages flite speaks: English only, whatever the region. */
const FLITE_LANGUAGE = 'en';
/** flite's voice when the agent's voice is unknown (slt: the one pocketsphinx recognises best). */
const FLITE_DEFAULT = 'slt';

/**
 * The engine voices for an agent's `voice` id in `language`. English goes to flite first (clearer
 * than espeak-ng, and recognised better), then espeak-ng; every other language to espeak-ng. An
 * unknown voice id speaks the language's default voice.
 */
export function planVoice(voice: string | null, language: string): VoicePlan {
  const code = language.trim().toLowerCase().replaceAll('_', '-');
  const primary = code.split('-')[0] ?? code;
  const agent = voice ? own(AGENT_VOICES, voice.trim().toLowerCase()) : undefined;
  const variant = agent ? VARIANTS[agent.gender] : '';
  // A bare code takes the voice's accent (`en` for a British voice is en-gb), else the table's.
  const dialect = code === primary ? agent?.dialect?.[primary] : undefined;
  const espeak = dialect ?? own(ESPEAK_LANGUAGES, code) ?? own(ESPEAK_LANGUAGES, primary);
  const espeakVoices = espeak ? [espeak] : [...new Set([code, primary])];
  const attempts: EngineVoice[] = espeakVoices.map((v) => ({ engine: 'espeak-ng', voice: `${v}${variant}` }));
  if (primary === FLITE_LANGUAGE) attempts.unshift({ engine: 'flite', voice: agent?.flite ?? FLITE_DEFAULT });
  return { language, attempts };
}

/** The gender of an agent's voice id; undefined for an id not in the catalogue. */
export function voiceGender(voice: string | null): Gender | undefined {
  return voice ? own(AGENT_VOICES, voice.trim().toLowerCase())?.gender : undefined;
}

/** A table's own entry: never `constructor` or `toString` from Object's prototype. */
function own<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
