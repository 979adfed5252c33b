import { startTool } from './tools';

// What the installed engines can speak, asked once per process. Both engines quietly speak their
// default voice for a voice they do not have (flite even loads a voice from any path or URL), so a
// voice is checked here before it is used.

let espeak: Promise<{ voices: Set<string>; variants: Set<string> }> | undefined;
let flite: Promise<Set<string>> | undefined;

/** Whether espeak-ng has `voice` (a language code or voice name, with an optional `+variant`). */
export async function espeakHasVoice(voice: string): Promise<boolean> {
  espeak ??= Promise.all([listing(['espeak-ng', '--voices']), listing(['espeak-ng', '--voices=variant'])])
    .then(([voices, variants]) => ({ voices: espeakNames(voices), variants: espeakNames(variants) }))
    .catch((error: unknown) => {
      espeak = undefined; // asked again next time: a busy machine may have timed it out
      throw error;
    });
  const [name = '', variant, ...rest] = voice.toLowerCase().split('+');
  const known = await espeak;
  return (
    rest.length === 0 && known.voices.has(name) && (variant === undefined || known.variants.has(variant))
  );
}

/** Whether flite has `voice` built in (`slt`, `kal`, `awb`, `rms` ...). */
export async function fliteHasVoice(voice: string): Promise<boolean> {
  // "Voices available: kal awb_time kal16 awb rms slt"
  flite ??= listing(['flite', '-lv'])
    .then((text) => new Set(text.split(':')[1]?.trim().split(/\s+/) ?? []))
    .catch((error: unknown) => {
      flite = undefined;
      throw error;
    });
  return (await flite).has(voice);
}

/** Languages, names and files in an `espeak-ng --voices` table, lower case (variants: `f2`, `m3` ...). */
function espeakNames(table: string): Set<string> {
  const names = new Set<string>();
  for (const line of table.split('\n').slice(1)) {
    const [, language, , name, file, ...others] = line.trim().split(/\s+/);
    const otherLanguages = others.join(' ').matchAll(/\(([^\s)]+)/g);
    for (const n of [language, name, file, file?.split('/').pop(), ...[...otherLanguages].map((m) => m[1])]) {
      if (n) names.add(n.toLowerCase());
    }
  }
  return names;
}

async function listing([command, ...args]: string[]): Promise<string> {
  const tool = startTool(command!, args, AbortSignal.timeout(10_000));
  let out = '';
  tool.child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  await tool.exited;
  return out;
}
