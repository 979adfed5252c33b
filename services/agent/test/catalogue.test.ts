import {
  AgentType,
  AiModel,
  CollectedDetail,
  GENERAL_AGENT_TYPES,
  Industry,
  Language,
  LanguageCode,
  Voice,
} from '@voice/shared';
import { describe, expect, it } from 'vitest';
import { PROMPT_MATERIAL } from '../src/domain/catalogue/agent-types/index';
import { Catalogue } from '../src/domain/catalogue/index';

const industries = Catalogue.listIndustries();
const agentTypes = Catalogue.listAllAgentTypes();
const industryTypes = agentTypes.filter((type) => type.category === 'industry');
const generalTypes = agentTypes.filter((type) => type.category === 'general');
const voices = Catalogue.listVoices();
const languages = Catalogue.listLanguages();
const models = Catalogue.listModels();

function duplicates(values: readonly string[]): string[] {
  return values.filter((value, index) => values.indexOf(value) !== index);
}

describe('catalogue data', () => {
  it('every entry parses with its schema', () => {
    for (const industry of industries) expect(Industry.parse(industry)).toEqual(industry);
    for (const type of agentTypes) expect(AgentType.parse(type)).toEqual(type);
    for (const voice of voices) expect(Voice.parse(voice)).toEqual(voice);
    for (const language of languages) expect(Language.parse(language)).toEqual(language);
    for (const model of models) expect(AiModel.parse(model)).toEqual(model);
  });

  it('has unique ids everywhere', () => {
    expect(duplicates(industries.map((industry) => industry.id))).toEqual([]);
    expect(duplicates(industries.map((industry) => industry.name.toLowerCase()))).toEqual([]);
    expect(duplicates(agentTypes.map((type) => type.id))).toEqual([]);
    expect(duplicates(voices.map((voice) => voice.id))).toEqual([]);
    expect(duplicates(languages.map((language) => language.code.toLowerCase()))).toEqual([]);
    expect(duplicates(models.map((model) => model.id))).toEqual([]);
  });

  it('has enough of everything', () => {
    expect(industries.length).toBeGreaterThanOrEqual(8);
    expect(voices.length).toBeGreaterThanOrEqual(12);
    expect(languages.length).toBeGreaterThanOrEqual(12);
    expect(models.length).toBeGreaterThanOrEqual(5);
  });

  it('gives every industry 3-5 agent types whose ids start with the industry id', () => {
    for (const industry of industries) {
      const own = industryTypes.filter((type) => type.industry === industry.id);
      expect(own.length, industry.id).toBeGreaterThanOrEqual(3);
      expect(own.length, industry.id).toBeLessThanOrEqual(5);
      expect(industry.agent_type_count, industry.id).toBe(own.length);
    }
    const industryIds = new Set(industries.map((industry) => industry.id));
    for (const type of industryTypes) {
      expect(type.industry, type.id).not.toBeNull();
      expect(industryIds.has(type.industry ?? ''), type.id).toBe(true);
      expect(type.id.startsWith(`${type.industry}_`), type.id).toBe(true);
    }
  });

  it('has exactly the general agent types, in order, with no industry', () => {
    expect(generalTypes.map((type) => type.id)).toEqual([...GENERAL_AGENT_TYPES]);
    for (const type of generalTypes) expect(type.industry, type.id).toBeNull();
    expect(agentTypes.length).toBe(industryTypes.length + generalTypes.length);
  });

  it('describes collected details consistently', () => {
    for (const type of agentTypes) {
      expect(type.goal.length, type.id).toBeGreaterThan(0);
      if (type.category === 'industry') {
        expect(type.collects.length, type.id).toBeGreaterThanOrEqual(3);
        expect(type.collects.length, type.id).toBeLessThanOrEqual(7);
      } else {
        expect(type.collects.length, type.id).toBeGreaterThanOrEqual(1);
      }
      expect(duplicates(type.collects.map((detail) => detail.name)), type.id).toEqual([]);
      for (const detail of type.collects) {
        const where = `${type.id}.${detail.name}`;
        expect(CollectedDetail.parse(detail)).toEqual(detail);
        if (detail.type === 'enum') {
          expect(detail.options?.length ?? 0, where).toBeGreaterThanOrEqual(2);
          expect(duplicates(detail.options ?? []), where).toEqual([]);
        } else {
          expect(detail.options, where).toBeUndefined();
        }
      }
    }
  });

  it('has exactly one default voice, which speaks en, and one default model', () => {
    const defaultVoices = voices.filter((voice) => voice.default);
    expect(defaultVoices).toHaveLength(1);
    expect(defaultVoices[0]?.languages).toContain('en');
    expect(Catalogue.defaultVoice()).toEqual(defaultVoices[0]);

    const defaultModels = models.filter((model) => model.default);
    expect(defaultModels).toHaveLength(1);
    expect(Catalogue.defaultModel()).toEqual(defaultModels[0]);
  });

  it('links voices and languages both ways', () => {
    const codes = new Set(languages.map((language) => language.code));
    for (const voice of voices) {
      for (const code of voice.languages) expect(codes.has(code), `${voice.id}: ${code}`).toBe(true);
      expect(duplicates(voice.languages), voice.id).toEqual([]);
    }
    for (const language of languages) {
      expect(LanguageCode.safeParse(language.code).success, language.code).toBe(true);
      expect(Catalogue.voicesForLanguage(language.code).length, language.code).toBeGreaterThan(0);
    }
    expect(codes.has('en')).toBe(true);
  });

  it('has prompt material for every agent type and for nothing else', () => {
    const ids = agentTypes.map((type) => type.id);
    expect(Object.keys(PROMPT_MATERIAL).sort()).toEqual([...ids].sort());
    for (const id of ids) {
      const material = Catalogue.promptMaterial(id);
      expect(material, id).toBeDefined();
      expect(material?.persona.length, id).toBeGreaterThan(0);
      expect(material?.guidelines.length, id).toBeGreaterThanOrEqual(3);
      expect(material?.guidelines.length, id).toBeLessThanOrEqual(6);
      for (const rule of material?.guidelines ?? []) expect(rule.trim().length, id).toBeGreaterThan(0);
    }
  });
});

describe('catalogue lookups', () => {
  it('finds an industry by id or by display name, ignoring case and surrounding whitespace', () => {
    expect(Catalogue.findIndustry('real_estate')?.id).toBe('real_estate');
    expect(Catalogue.findIndustry('Real Estate')?.id).toBe('real_estate');
    expect(Catalogue.findIndustry('  real ESTATE ')?.id).toBe('real_estate');
    expect(Catalogue.findIndustry('Financial Services')?.id).toBe('financial_services');
    for (const industry of industries) {
      expect(Catalogue.findIndustry(industry.name.toUpperCase())).toEqual(industry);
    }
  });

  it('returns undefined for an unknown industry', () => {
    expect(Catalogue.findIndustry('astrology')).toBeUndefined();
    expect(Catalogue.findIndustry('')).toBeUndefined();
    expect(Catalogue.findIndustry('real estate agency')).toBeUndefined();
  });

  it('matches ids case-insensitively, as it does names', () => {
    expect(Catalogue.findIndustry('Real_Estate')?.id).toBe('real_estate');
    expect(Catalogue.findIndustry(' HEALTHCARE ')?.id).toBe('healthcare');
  });

  it('lists an industry’s own agent types followed by the general ones', () => {
    const types = Catalogue.listAgentTypes('healthcare');
    const own = types.filter((type) => type.category === 'industry');
    expect(own.length).toBeGreaterThanOrEqual(3);
    expect(own.every((type) => type.industry === 'healthcare')).toBe(true);
    expect(types.slice(0, own.length)).toEqual(own);
    expect(types.slice(own.length).map((type) => type.id)).toEqual([...GENERAL_AGENT_TYPES]);
    expect(Catalogue.listAgentTypes('astrology')).toEqual([]);
  });

  it('finds agent types, voices, languages and models by id', () => {
    expect(Catalogue.findAgentType('real_estate_lead_qualifier')?.industry).toBe('real_estate');
    expect(Catalogue.findAgentType('custom')?.category).toBe('general');
    expect(Catalogue.findAgentType('nope')).toBeUndefined();
    expect(Catalogue.findVoice(Catalogue.defaultVoice().id)?.default).toBe(true);
    expect(Catalogue.findVoice('nope')).toBeUndefined();
    expect(Catalogue.findLanguage('en-GB')?.name).toBe('English (United Kingdom)');
    expect(Catalogue.findLanguage('pt-br')?.code).toBe('pt-BR');
    expect(Catalogue.findLanguage('xx')).toBeUndefined();
    expect(Catalogue.findModel(Catalogue.defaultModel().id)?.default).toBe(true);
    expect(Catalogue.findModel('nope')).toBeUndefined();
    expect(Catalogue.promptMaterial('nope')).toBeUndefined();
    expect(Catalogue.promptMaterial('constructor')).toBeUndefined();
  });

  it('lists voices for a language', () => {
    const spanish = Catalogue.voicesForLanguage('es');
    expect(spanish.length).toBeGreaterThan(0);
    expect(spanish.every((voice) => voice.languages.includes('es'))).toBe(true);
    expect(Catalogue.voicesForLanguage('en-gb').every((voice) => voice.languages.includes('en-GB'))).toBe(
      true,
    );
    expect(Catalogue.voicesForLanguage('xx')).toEqual([]);
  });
});

describe('catalogue immutability', () => {
  it('is not changed by mutating returned arrays', () => {
    const before = Catalogue.listIndustries();
    const list = Catalogue.listIndustries();
    list.pop();
    list.push({ id: 'fake', name: 'Fake', description: '', agent_type_count: 0 });
    expect(Catalogue.listIndustries()).toEqual(before);

    const types = Catalogue.listAgentTypes('legal');
    const typeCount = types.length;
    types.length = 0;
    expect(Catalogue.listAgentTypes('legal')).toHaveLength(typeCount);

    for (const list of [Catalogue.listVoices(), Catalogue.listLanguages(), Catalogue.listModels()])
      list.splice(0);
    expect(Catalogue.listVoices()).toEqual(voices);
    expect(Catalogue.listLanguages()).toEqual(languages);
    expect(Catalogue.listModels()).toEqual(models);
  });

  it('is not changed by mutating returned entries', () => {
    const industry = Catalogue.findIndustry('legal');
    if (industry) industry.name = 'Changed';
    expect(Catalogue.findIndustry('legal')?.name).toBe('Legal');

    const type = Catalogue.findAgentType('sales');
    type?.collects.splice(0);
    expect(Catalogue.findAgentType('sales')?.collects.length).toBeGreaterThan(0);

    const voice = Catalogue.defaultVoice();
    voice.default = false;
    voice.languages.push('xx');
    expect(Catalogue.defaultVoice().default).toBe(true);
    expect(Catalogue.defaultVoice().languages).not.toContain('xx');

    const material = Catalogue.promptMaterial('support');
    material?.guidelines.splice(0);
    expect(Catalogue.promptMaterial('support')?.guidelines.length).toBeGreaterThan(0);

    const listed = Catalogue.listVoices();
    if (listed[0]) listed[0].name = 'Changed';
    expect(Catalogue.listVoices()[0]?.name).not.toBe('Changed');
  });
});
