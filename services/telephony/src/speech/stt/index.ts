// Speech recognition engines for the conversation engine (SpeechRecognizer in conversation/types).
export { buildGrammar, type GrammarRequest, type TurnGrammar } from './domain/grammar';
export { DEFAULT_CONFIDENCE as OPENAI_DEFAULT_CONFIDENCE } from './domain/transcription-response';
export { type Lexicon, spokenTokens } from './domain/words';
export { loadDictionary, PronunciationDictionary } from './lexicon';
export { OpenAiTranscriber, type OpenAiTranscriberOptions } from './openai';
export {
  DEFAULT_DICTIONARY,
  DEFAULT_MODEL_DIR,
  isEnglish,
  type PocketsphinxOptions,
  PocketsphinxRecognizer,
} from './pocketsphinx';
