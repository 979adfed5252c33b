import type { AgentType } from '@voice/shared/contracts';

/** General agent types for servicing customers: support, compliance, appointment booking and custom. */
export const GENERAL_SERVICE_TYPES: readonly AgentType[] = [
  {
    id: 'support',
    name: 'Customer Support',
    description: 'Calls customers about an open issue, troubleshoots it and records whether it was resolved.',
    category: 'general',
    industry: null,
    goal: 'Understand the customer’s issue, resolve it on the call or hand it off with everything the next person needs.',
    collects: [
      {
        name: 'issue_category',
        type: 'enum',
        description: 'What the issue is mainly about.',
        required: true,
        options: ['billing', 'technical', 'account', 'order', 'other'],
      },
      {
        name: 'issue_summary',
        type: 'string',
        description: 'The issue in the customer’s own words, summarised.',
        required: true,
      },
      {
        name: 'resolved',
        type: 'boolean',
        description: 'Whether the issue was resolved during the call.',
        required: true,
      },
      {
        name: 'escalation_needed',
        type: 'boolean',
        description: 'Whether a human needs to follow up.',
        required: false,
      },
      {
        name: 'satisfaction_rating',
        type: 'number',
        description: 'Customer satisfaction with the call, from 1 (poor) to 5 (excellent).',
        required: false,
      },
    ],
  },
  {
    id: 'compliance',
    name: 'Compliance Verification',
    description:
      'Runs scripted verification calls: confirming consent, identity, disclosures or the terms of an agreement.',
    category: 'general',
    industry: null,
    goal: 'Read the required disclosures and record the customer’s explicit confirmation of each required point.',
    collects: [
      {
        name: 'identity_verified',
        type: 'boolean',
        description: 'Whether the customer passed identity verification.',
        required: true,
      },
      {
        name: 'disclosures_read',
        type: 'boolean',
        description: 'Whether every required disclosure was read in full.',
        required: true,
      },
      {
        name: 'terms_confirmed',
        type: 'boolean',
        description: 'Whether the customer explicitly confirmed the terms.',
        required: true,
      },
      {
        name: 'recording_consent',
        type: 'boolean',
        description: 'Whether the customer consented to the call being recorded.',
        required: true,
      },
      {
        name: 'objections',
        type: 'string',
        description: 'Any point the customer did not agree with, in their words.',
        required: false,
      },
    ],
  },
  {
    id: 'appointment_booking',
    name: 'Appointment Booking',
    description:
      'Books, confirms or reschedules appointments and makes sure the customer knows what to expect.',
    category: 'general',
    industry: null,
    goal: 'Leave the call with an appointment booked at a specific time the customer has confirmed.',
    collects: [
      {
        name: 'appointment_datetime',
        type: 'datetime',
        description: 'Date and time of the booked appointment.',
        required: true,
      },
      {
        name: 'appointment_type',
        type: 'string',
        description: 'What the appointment is for.',
        required: false,
      },
      {
        name: 'location_preference',
        type: 'enum',
        description: 'Where the appointment takes place.',
        required: false,
        options: ['in_person', 'phone', 'video'],
      },
      { name: 'email', type: 'email', description: 'Email address for the confirmation.', required: false },
      {
        name: 'reminder_opt_in',
        type: 'boolean',
        description: 'Whether the customer wants a reminder before the appointment.',
        required: false,
      },
    ],
  },
  {
    id: 'custom',
    name: 'Custom',
    description: 'A blank agent: the business writes its own prompt and decides what the call is for.',
    category: 'general',
    industry: null,
    goal: 'Achieve whatever goal the business describes in the agent’s custom prompt.',
    collects: [
      {
        name: 'notes',
        type: 'string',
        description: 'Free-form notes on the conversation and its outcome.',
        required: false,
      },
    ],
  },
];
