import type { AgentType } from '@voice/shared/contracts';

/** Agent types for the legal industry. */
export const LEGAL_TYPES: readonly AgentType[] = [
  {
    id: 'legal_client_intake',
    name: 'Client Intake',
    description: 'Screens prospective clients, gathers the facts of their matter and books a consultation.',
    category: 'industry',
    industry: 'legal',
    goal: 'Collect the facts and parties of the matter for a conflict check and book a consultation with an attorney.',
    collects: [
      {
        name: 'practice_area',
        type: 'enum',
        description: 'Area of law.',
        required: true,
        options: [
          'personal_injury',
          'family',
          'criminal_defence',
          'immigration',
          'estate_planning',
          'employment',
          'business',
          'other',
        ],
      },
      {
        name: 'matter_summary',
        type: 'string',
        description: 'Short summary of the situation.',
        required: true,
      },
      {
        name: 'incident_date',
        type: 'date',
        description: 'When the key event happened, if any.',
        required: false,
      },
      {
        name: 'opposing_party',
        type: 'string',
        description: 'Names of other parties, for the conflict check.',
        required: true,
      },
      {
        name: 'has_other_counsel',
        type: 'boolean',
        description: 'Whether another lawyer already represents them.',
        required: false,
      },
      {
        name: 'consultation_datetime',
        type: 'datetime',
        description: 'Booked consultation.',
        required: false,
      },
    ],
  },
  {
    id: 'legal_consultation_reminder',
    name: 'Consultation Reminder',
    description: 'Reminds clients of upcoming consultations and court-preparation meetings.',
    category: 'industry',
    industry: 'legal',
    goal: 'Confirm the client will attend and will bring what the attorney needs.',
    collects: [
      {
        name: 'attendance',
        type: 'enum',
        description: 'What the client decided.',
        required: true,
        options: ['confirmed', 'reschedule', 'cancel'],
      },
      {
        name: 'new_consultation_datetime',
        type: 'datetime',
        description: 'New time if rescheduled.',
        required: false,
      },
      {
        name: 'documents_ready',
        type: 'boolean',
        description: 'Whether the client has the requested documents.',
        required: false,
      },
      {
        name: 'interpreter_language',
        type: 'string',
        description: 'Language the client needs an interpreter for, if any.',
        required: false,
      },
    ],
  },
  {
    id: 'legal_document_collection',
    name: 'Document Collection',
    description: 'Chases clients for documents and signatures the firm needs to progress their matter.',
    category: 'industry',
    industry: 'legal',
    goal: 'Get a firm date and method for the client to send the outstanding documents.',
    collects: [
      {
        name: 'documents_ready',
        type: 'boolean',
        description: 'Whether the client has the documents ready.',
        required: true,
      },
      {
        name: 'expected_submission_date',
        type: 'date',
        description: 'When the client will send them.',
        required: true,
      },
      {
        name: 'submission_method',
        type: 'enum',
        description: 'How the client will send them.',
        required: false,
        options: ['client_portal', 'email', 'post', 'in_person'],
      },
      {
        name: 'questions_for_attorney',
        type: 'string',
        description: 'Questions to pass to the attorney.',
        required: false,
      },
    ],
  },
];
