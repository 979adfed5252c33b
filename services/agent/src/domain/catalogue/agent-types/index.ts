import { type AgentType, GENERAL_AGENT_TYPES } from '@voice/shared/contracts';
import type { PromptMaterialMap } from '../types';
import { AUTOMOTIVE_TYPES } from './automotive';
import { AUTOMOTIVE_PROMPTS } from './automotive.prompts';
import { ECOMMERCE_TYPES } from './ecommerce';
import { ECOMMERCE_PROMPTS } from './ecommerce.prompts';
import { EDUCATION_TYPES } from './education';
import { EDUCATION_PROMPTS } from './education.prompts';
import { FINANCIAL_SERVICES_TYPES } from './financial-services';
import { FINANCIAL_SERVICES_PROMPTS } from './financial-services.prompts';
import { GENERAL_OUTREACH_TYPES } from './general-outreach';
import { GENERAL_OUTREACH_PROMPTS } from './general-outreach.prompts';
import { GENERAL_SERVICE_TYPES } from './general-service';
import { GENERAL_SERVICE_PROMPTS } from './general-service.prompts';
import { HEALTHCARE_TYPES } from './healthcare';
import { HEALTHCARE_PROMPTS } from './healthcare.prompts';
import { HOME_SERVICES_TYPES } from './home-services';
import { HOME_SERVICES_PROMPTS } from './home-services.prompts';
import { HOSPITALITY_TYPES } from './hospitality';
import { HOSPITALITY_PROMPTS } from './hospitality.prompts';
import { INSURANCE_TYPES } from './insurance';
import { INSURANCE_PROMPTS } from './insurance.prompts';
import { LEGAL_TYPES } from './legal';
import { LEGAL_PROMPTS } from './legal.prompts';
import { REAL_ESTATE_TYPES } from './real-estate';
import { REAL_ESTATE_PROMPTS } from './real-estate.prompts';
import { RECRUITING_TYPES } from './recruiting';
import { RECRUITING_PROMPTS } from './recruiting.prompts';
import { TELECOM_TYPES } from './telecom';
import { TELECOM_PROMPTS } from './telecom.prompts';

/** Every industry-specific agent type, grouped by industry. */
export const INDUSTRY_TYPES: readonly AgentType[] = [
  ...REAL_ESTATE_TYPES,
  ...HEALTHCARE_TYPES,
  ...INSURANCE_TYPES,
  ...AUTOMOTIVE_TYPES,
  ...FINANCIAL_SERVICES_TYPES,
  ...HOSPITALITY_TYPES,
  ...EDUCATION_TYPES,
  ...ECOMMERCE_TYPES,
  ...HOME_SERVICES_TYPES,
  ...LEGAL_TYPES,
  ...RECRUITING_TYPES,
  ...TELECOM_TYPES,
];

const generalOrder = (type: AgentType): number => (GENERAL_AGENT_TYPES as readonly string[]).indexOf(type.id);

/** The general agent types, in the order of GENERAL_AGENT_TYPES. */
export const GENERAL_TYPES: readonly AgentType[] = [...GENERAL_OUTREACH_TYPES, ...GENERAL_SERVICE_TYPES].sort(
  (a, b) => generalOrder(a) - generalOrder(b),
);

/** Prompt material for every agent type (industry and general), keyed by agent type id. */
export const PROMPT_MATERIAL: PromptMaterialMap = {
  ...GENERAL_OUTREACH_PROMPTS,
  ...GENERAL_SERVICE_PROMPTS,
  ...REAL_ESTATE_PROMPTS,
  ...HEALTHCARE_PROMPTS,
  ...INSURANCE_PROMPTS,
  ...AUTOMOTIVE_PROMPTS,
  ...FINANCIAL_SERVICES_PROMPTS,
  ...HOSPITALITY_PROMPTS,
  ...EDUCATION_PROMPTS,
  ...ECOMMERCE_PROMPTS,
  ...HOME_SERVICES_PROMPTS,
  ...LEGAL_PROMPTS,
  ...RECRUITING_PROMPTS,
  ...TELECOM_PROMPTS,
};
