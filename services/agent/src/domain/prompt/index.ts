export { type CallKind, callKind } from './call-kind';
export { generatePrompt, type PromptInput } from './generate';
export { promptHash } from './hash';
export { headingLine, SECTION, SECTION_ORDER, type SectionKey } from './headings';
