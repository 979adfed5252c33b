// Speech synthesis for the conversation engine: local engines (espeak-ng, flite) and an adapter for
// OpenAI-compatible `/audio/speech` endpoints, all giving 8 kHz PCM as it is produced.
export { Frames, framesOf } from './frames';
export { LocalSynthesizer, type LocalSynthesizerOptions } from './local-synthesizer';
export { OpenAiSpeech, type OpenAiSpeechOptions, SpeechHttpError } from './openai-speech';
export { collectSpeech } from './pcm';
export { DEFAULT_SEGMENTS, type SegmentOptions, speechSegments } from './segments';
export { type EngineVoice, type LocalEngine, planVoice, type VoicePlan, voiceGender } from './voice-map';
