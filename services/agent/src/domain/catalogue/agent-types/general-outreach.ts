import type { AgentType } from '@voice/shared/contracts';

/** General agent types for revenue outreach: sales, cold calling, collections and retention. */
export const GENERAL_OUTREACH_TYPES: readonly AgentType[] = [
  {
    id: 'sales',
    name: 'Sales',
    description:
      'Follows up with interested prospects, presents an offer and moves them to a purchase or a meeting.',
    category: 'general',
    industry: null,
    goal: 'Turn an interested prospect into a purchase, a signed-up trial or a booked sales meeting.',
    collects: [
      {
        name: 'interest_level',
        type: 'enum',
        description: 'How interested the prospect is after the pitch.',
        required: true,
        options: ['high', 'medium', 'low', 'none'],
      },
      {
        name: 'budget',
        type: 'number',
        description: 'Budget the prospect has for the purchase, in their currency.',
        required: false,
      },
      {
        name: 'decision_timeline',
        type: 'enum',
        description: 'When the prospect expects to decide.',
        required: false,
        options: ['this_week', 'this_month', 'this_quarter', 'later', 'unknown'],
      },
      {
        name: 'is_decision_maker',
        type: 'boolean',
        description: 'Whether the person on the call can make the purchase decision.',
        required: false,
      },
      {
        name: 'meeting_datetime',
        type: 'datetime',
        description: 'Follow-up meeting or demo booked during the call.',
        required: false,
      },
      {
        name: 'email',
        type: 'email',
        description: 'Email address to send the offer or meeting invite to.',
        required: false,
      },
    ],
  },
  {
    id: 'cold_calling',
    name: 'Cold Calling',
    description:
      'Reaches prospects who have not heard from the business before and qualifies whether there is a fit.',
    category: 'general',
    industry: null,
    goal: 'Earn a minute of attention, find out whether the prospect has the problem the business solves, and book a follow-up if so.',
    collects: [
      {
        name: 'reached_decision_maker',
        type: 'boolean',
        description: 'Whether the call reached the person who decides.',
        required: true,
      },
      {
        name: 'has_need',
        type: 'boolean',
        description: 'Whether the prospect has the problem the offer solves.',
        required: true,
      },
      {
        name: 'current_solution',
        type: 'string',
        description: 'What the prospect uses today instead.',
        required: false,
      },
      {
        name: 'follow_up_datetime',
        type: 'datetime',
        description: 'Agreed time for a follow-up call or meeting.',
        required: false,
      },
      {
        name: 'email',
        type: 'email',
        description: 'Email address to send more information to.',
        required: false,
      },
      {
        name: 'do_not_call',
        type: 'boolean',
        description: 'Whether the prospect asked not to be called again.',
        required: true,
      },
    ],
  },
  {
    id: 'collection',
    name: 'Collections',
    description: 'Reminds customers of an overdue balance and agrees a payment or a payment plan.',
    category: 'general',
    industry: null,
    goal: 'Get a firm commitment to pay an overdue balance, in full or through a payment plan, by a specific date.',
    collects: [
      {
        name: 'identity_verified',
        type: 'boolean',
        description: 'Whether the debtor’s identity was verified before the balance was discussed.',
        required: true,
      },
      {
        name: 'payment_commitment',
        type: 'enum',
        description: 'What the customer committed to.',
        required: true,
        options: ['paid_in_full', 'promise_to_pay', 'payment_plan', 'dispute', 'refused'],
      },
      {
        name: 'promised_amount',
        type: 'number',
        description: 'Amount the customer promised to pay.',
        required: false,
      },
      {
        name: 'promised_date',
        type: 'date',
        description: 'Date by which the customer promised to pay.',
        required: false,
      },
      {
        name: 'hardship_reason',
        type: 'string',
        description: 'Reason given if the customer cannot pay.',
        required: false,
      },
    ],
  },
  {
    id: 'retention',
    name: 'Retention',
    description:
      'Contacts customers who are at risk of leaving or have asked to cancel, and tries to keep them.',
    category: 'general',
    industry: null,
    goal: 'Find out why the customer wants to leave and keep them with a fix or an offer that fits that reason.',
    collects: [
      {
        name: 'cancellation_reason',
        type: 'enum',
        description: 'Main reason the customer wants to leave.',
        required: true,
        options: ['price', 'service_quality', 'competitor', 'no_longer_needed', 'moving', 'other'],
      },
      {
        name: 'offer_presented',
        type: 'string',
        description: 'Retention offer presented to the customer.',
        required: false,
      },
      {
        name: 'outcome',
        type: 'enum',
        description: 'What the customer decided.',
        required: true,
        options: ['retained', 'downgraded', 'paused', 'cancelled', 'undecided'],
      },
      {
        name: 'competitor_name',
        type: 'string',
        description: 'Competitor the customer is moving to, if any.',
        required: false,
      },
      {
        name: 'satisfaction_rating',
        type: 'number',
        description: 'Satisfaction with the service overall, from 1 to 5.',
        required: false,
      },
    ],
  },
];
