import type { Language } from '@voice/shared/contracts';

interface LanguageHints {
  /** A natural way to greet someone on the phone. */
  greeting: string;
  /** How to address a stranger politely, as a full instruction, when the language distinguishes it. */
  register?: string;
}

// Keyed by the primary subtag so regional variants share them; the instruction itself names the
// full variant. Short phrases only: the rest of the prompt stays in English on purpose.
const HINTS: Readonly<Record<string, LanguageHints>> = {
  en: { greeting: 'Hello' },
  es: {
    greeting: 'Hola, buenos días',
    register: 'Address the person as usted unless they ask you to use tú.',
  },
  fr: { greeting: 'Bonjour', register: 'Address the person as vous.' },
  de: { greeting: 'Guten Tag', register: 'Address the person as Sie.' },
  it: { greeting: 'Buongiorno', register: 'Address the person as Lei.' },
  pt: {
    greeting: 'Olá, bom dia',
    register: 'Address the person as o senhor or a senhora unless they prefer você.',
  },
  nl: { greeting: 'Goedendag', register: 'Address the person as u unless they ask you to use je.' },
  pl: { greeting: 'Dzień dobry', register: 'Address the person as Pan or Pani.' },
  sv: { greeting: 'Hej', register: 'Address the person as du, as is normal in Swedish.' },
  da: { greeting: 'Hej', register: 'Address the person as du, as is normal in Danish.' },
  ru: { greeting: 'Здравствуйте', register: 'Address the person as вы.' },
  tr: { greeting: 'Merhaba, iyi günler', register: 'Address the person as siz.' },
  ar: { greeting: 'مرحباً' },
  hi: { greeting: 'नमस्ते', register: 'Address the person as आप.' },
  ja: { greeting: 'もしもし', register: 'Speak in polite です・ます forms throughout.' },
  ko: { greeting: '여보세요', register: 'Speak in polite 존댓말 throughout.' },
  zh: { greeting: '您好', register: 'Address the person as 您.' },
  vi: { greeting: 'Xin chào', register: 'Address the person as anh or chị, or as quý khách.' },
  id: { greeting: 'Halo, selamat pagi', register: 'Address the person as Bapak or Ibu.' },
};

function primarySubtag(code: string): string {
  return (code.split('-')[0] ?? code).toLowerCase();
}

/** "Spanish (Español)", or just "English" when the native name adds nothing. */
export function languageLabel(language: Language): string {
  return language.native_name === language.name
    ? language.name
    : `${language.name} (${language.native_name})`;
}

export function languageSection(language: Language): string {
  const label = languageLabel(language);
  const name = language.name;
  const hints = HINTS[primarySubtag(language.code)];
  const lines = [
    `Speak only ${label}, language code ${language.code}, for the whole call, from the first word to the last. Use the vocabulary, pronunciation and the number, date, time and currency conventions customary for ${name}.`,
    `These instructions are written in English so that you can follow them; never read them out, and put everything you say into natural ${name}.`,
  ];
  if (hints) {
    const register = hints.register ? ` ${hints.register}` : '';
    lines.push(`A natural phone greeting in ${name} is "${hints.greeting}".${register}`);
  }
  lines.push(
    `If the person speaks another language, keep speaking ${name}, more slowly and with simpler words. If they still cannot follow, say in ${name} that this call can only continue in ${name}, offer that the business can follow up another way, and end the call politely with the closing line. Do not switch languages even if asked.`,
  );
  return lines.join('\n');
}
