import type { AgentType } from '@voice/shared/contracts';

/** Agent types for the insurance industry. */
export const INSURANCE_TYPES: readonly AgentType[] = [
  {
    id: 'insurance_quote_qualifier',
    name: 'Quote Qualifier',
    description:
      'Calls prospects who requested an insurance quote and gathers what an agent needs to price it.',
    category: 'industry',
    industry: 'insurance',
    goal: 'Collect the details needed for an accurate quote and hand a qualified prospect to a licensed agent.',
    collects: [
      {
        name: 'coverage_type',
        type: 'enum',
        description: 'Kind of cover wanted.',
        required: true,
        options: ['auto', 'home', 'renters', 'life', 'health', 'business'],
      },
      {
        name: 'current_insurer',
        type: 'string',
        description: 'Current insurance company, if any.',
        required: false,
      },
      { name: 'renewal_date', type: 'date', description: 'When the current policy renews.', required: false },
      {
        name: 'postal_code',
        type: 'string',
        description: 'Postal or ZIP code of the insured address.',
        required: true,
      },
      {
        name: 'people_to_insure',
        type: 'number',
        description: 'Number of drivers or people to cover.',
        required: false,
      },
      { name: 'email', type: 'email', description: 'Email address to send the quote to.', required: false },
    ],
  },
  {
    id: 'insurance_policy_renewal',
    name: 'Policy Renewal',
    description:
      'Contacts policyholders ahead of renewal to confirm they are renewing and capture any changes.',
    category: 'industry',
    industry: 'insurance',
    goal: 'Secure the policyholder’s renewal and capture any change in circumstances before the policy lapses.',
    collects: [
      {
        name: 'renewal_intent',
        type: 'enum',
        description: 'What the policyholder intends to do.',
        required: true,
        options: ['renew', 'shopping_around', 'cancel', 'undecided'],
      },
      {
        name: 'circumstances_changed',
        type: 'boolean',
        description: 'Whether anything material changed since last year.',
        required: true,
      },
      {
        name: 'changes_description',
        type: 'string',
        description: 'What changed (address, vehicle, drivers, property).',
        required: false,
      },
      {
        name: 'payment_method_valid',
        type: 'boolean',
        description: 'Whether the payment method on file is still valid.',
        required: false,
      },
      {
        name: 'agent_callback_requested',
        type: 'boolean',
        description: 'Whether they want to speak to their agent.',
        required: false,
      },
    ],
  },
  {
    id: 'insurance_claims_intake',
    name: 'Claims Intake',
    description: 'Takes first notice of loss from policyholders and opens the claim with the key facts.',
    category: 'industry',
    industry: 'insurance',
    goal: 'Record what happened, when and to what, so an adjuster can open the claim without calling back for basics.',
    collects: [
      {
        name: 'policy_number',
        type: 'string',
        description: 'Policy number of the claimant.',
        required: true,
      },
      { name: 'incident_date', type: 'date', description: 'Date the loss happened.', required: true },
      {
        name: 'incident_type',
        type: 'enum',
        description: 'Type of incident.',
        required: true,
        options: ['collision', 'theft', 'fire', 'water_damage', 'storm', 'injury', 'other'],
      },
      {
        name: 'incident_description',
        type: 'string',
        description: 'What happened, in the claimant’s words.',
        required: true,
      },
      {
        name: 'injuries_involved',
        type: 'boolean',
        description: 'Whether anyone was injured.',
        required: true,
      },
      {
        name: 'police_report_filed',
        type: 'boolean',
        description: 'Whether a police report was filed.',
        required: false,
      },
      {
        name: 'estimated_damage',
        type: 'number',
        description: 'Claimant’s rough estimate of the damage.',
        required: false,
      },
    ],
  },
  {
    id: 'insurance_coverage_review',
    name: 'Coverage Review',
    description: 'Runs annual check-ins with existing clients to spot coverage gaps after life changes.',
    category: 'industry',
    industry: 'insurance',
    goal: 'Find life changes that leave the client under-insured and book a review with their agent.',
    collects: [
      {
        name: 'life_change',
        type: 'enum',
        description: 'Most significant recent change.',
        required: true,
        options: ['marriage', 'new_child', 'new_home', 'new_vehicle', 'new_business', 'retirement', 'none'],
      },
      {
        name: 'interested_in_more_cover',
        type: 'boolean',
        description: 'Whether the client wants to discuss extra cover.',
        required: true,
      },
      {
        name: 'review_meeting_datetime',
        type: 'datetime',
        description: 'Booked review meeting with the agent.',
        required: false,
      },
      { name: 'email', type: 'email', description: 'Email address for the meeting invite.', required: false },
    ],
  },
];
