import type { Config, Logger } from '@voice/shared';
import { OpenAiTranscriber, PocketsphinxRecognizer } from '../speech/stt';
import { LocalSynthesizer, OpenAiSpeech } from '../speech/tts';
import { createBrain } from './brain-factory';
import type { ConversationEngines, ConversationSettings } from './engine';

/**
 * The engines a deployment runs, from its configuration: local ones by default (espeak-ng and
 * flite, pocketsphinx, the rule brain), OpenAI-compatible endpoints where configured.
 */
export function conversationEngines(config: Config, log: Logger): ConversationEngines {
  const speechBaseUrl = config.SPEECH_BASE_URL ?? config.LLM_BASE_URL ?? '';
  const speechKey = config.SPEECH_API_KEY ?? config.LLM_API_KEY;
  const tts =
    config.TTS_ENGINE === 'openai'
      ? new OpenAiSpeech({ baseUrl: speechBaseUrl, apiKey: speechKey, model: config.TTS_MODEL })
      : new LocalSynthesizer();
  const stt =
    config.STT_ENGINE === 'openai'
      ? new OpenAiTranscriber({ baseUrl: speechBaseUrl, apiKey: speechKey, model: config.STT_MODEL })
      : new PocketsphinxRecognizer();
  const brain = createBrain(
    config.CONVERSATION_BRAIN === 'llm'
      ? {
          kind: 'llm',
          baseUrl: config.LLM_BASE_URL ?? '',
          apiKey: config.LLM_API_KEY ?? '',
          ...(config.LLM_MODEL ? { model: config.LLM_MODEL } : {}),
          timeoutMs: config.LLM_TIMEOUT_MS,
        }
      : { kind: 'rules' },
    log,
  );
  return { tts, stt, brain };
}

export function conversationSettings(config: Config): ConversationSettings {
  return {
    silenceMs: config.CONVERSATION_SILENCE_MS,
    amd: config.CONVERSATION_AMD === 'on',
    endOfUtteranceMs: config.CONVERSATION_END_OF_UTTERANCE_MS,
  };
}
