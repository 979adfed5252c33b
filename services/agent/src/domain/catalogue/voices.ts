import type { Voice } from '@voice/shared/contracts';

/** The voice new agents get when none is chosen. It speaks `en`. */
const DEFAULT_VOICE_ID = 'aria';

function voice(
  id: string,
  name: string,
  gender: Voice['gender'],
  accent: string,
  languages: string[],
  provider: string,
): Voice {
  return { id, name, gender, accent, languages, provider, default: id === DEFAULT_VOICE_ID };
}

/**
 * Voices an agent can use. `languages` lists the codes (from LANGUAGES) the voice speaks well;
 * multilingual voices list several, and every language has at least one voice.
 */
export const VOICES: readonly Voice[] = [
  // Multilingual voices.
  voice(
    'aria',
    'Aria',
    'female',
    'American',
    ['en', 'es', 'fr', 'de', 'it', 'pt-BR', 'nl', 'pl'],
    'elevenlabs',
  ),
  voice(
    'roger',
    'Roger',
    'male',
    'American',
    ['en', 'es', 'fr', 'de', 'it', 'pt-BR', 'nl', 'sv'],
    'elevenlabs',
  ),
  voice(
    'river',
    'River',
    'neutral',
    'American',
    ['en', 'es', 'fr', 'de', 'pt-BR', 'ja', 'ko', 'zh-CN'],
    'elevenlabs',
  ),
  // English.
  voice('jenny', 'Jenny', 'female', 'American', ['en'], 'azure'),
  voice('davis', 'Davis', 'male', 'American', ['en'], 'azure'),
  voice('sonia', 'Sonia', 'female', 'British', ['en-GB', 'en'], 'azure'),
  voice('ryan', 'Ryan', 'male', 'British', ['en-GB', 'en'], 'azure'),
  voice('natasha', 'Natasha', 'female', 'Australian', ['en-AU', 'en'], 'azure'),
  voice('neerja', 'Neerja', 'female', 'Indian', ['en-IN', 'hi'], 'azure'),
  // Other languages.
  voice('madhur', 'Madhur', 'male', 'Indian', ['hi', 'en-IN'], 'azure'),
  voice('elvira', 'Elvira', 'female', 'Castilian', ['es'], 'azure'),
  voice('jorge', 'Jorge', 'male', 'Mexican', ['es-MX', 'es'], 'azure'),
  voice('dalia', 'Dalia', 'female', 'Mexican', ['es-MX', 'es'], 'google'),
  voice('denise', 'Denise', 'female', 'Parisian', ['fr'], 'azure'),
  voice('sylvie', 'Sylvie', 'female', 'Québécois', ['fr-CA', 'fr'], 'azure'),
  voice('katja', 'Katja', 'female', 'Standard German', ['de'], 'azure'),
  voice('lukas', 'Lukas', 'male', 'Standard German', ['de'], 'google'),
  voice('isabella', 'Isabella', 'female', 'Italian', ['it'], 'azure'),
  voice('francisca', 'Francisca', 'female', 'Brazilian', ['pt-BR'], 'azure'),
  voice('raquel', 'Raquel', 'female', 'European Portuguese', ['pt-PT'], 'azure'),
  voice('fenna', 'Fenna', 'female', 'Dutch', ['nl'], 'playht'),
  voice('zofia', 'Zofia', 'female', 'Polish', ['pl'], 'azure'),
  voice('hillevi', 'Hillevi', 'female', 'Swedish', ['sv'], 'azure'),
  voice('christel', 'Christel', 'female', 'Danish', ['da'], 'azure'),
  voice('dmitry', 'Dmitry', 'male', 'Russian', ['ru'], 'azure'),
  voice('emel', 'Emel', 'female', 'Turkish', ['tr'], 'azure'),
  voice('zariyah', 'Zariyah', 'female', 'Modern Standard Arabic', ['ar'], 'azure'),
  voice('nanami', 'Nanami', 'female', 'Japanese', ['ja'], 'azure'),
  voice('sunhi', 'Sun-Hi', 'female', 'Korean', ['ko'], 'azure'),
  voice('xiaoxiao', 'Xiaoxiao', 'female', 'Mainland Mandarin', ['zh-CN'], 'azure'),
  voice('hoaimy', 'Hoài My', 'female', 'Northern Vietnamese', ['vi'], 'azure'),
  voice('gadis', 'Gadis', 'female', 'Indonesian', ['id'], 'azure'),
];
