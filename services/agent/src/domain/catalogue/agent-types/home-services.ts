import type { AgentType } from '@voice/shared/contracts';

/** Agent types for the home_services industry. */
export const HOME_SERVICES_TYPES: readonly AgentType[] = [
  {
    id: 'home_services_estimate_booking',
    name: 'Estimate Booking',
    description:
      'Calls homeowners who requested service, triages the job and books an estimate or repair visit.',
    category: 'industry',
    industry: 'home_services',
    goal: 'Understand the job and its urgency and book a technician visit.',
    collects: [
      {
        name: 'service_needed',
        type: 'enum',
        description: 'Trade needed.',
        required: true,
        options: [
          'hvac',
          'plumbing',
          'electrical',
          'roofing',
          'pest_control',
          'cleaning',
          'landscaping',
          'other',
        ],
      },
      {
        name: 'issue_description',
        type: 'string',
        description: 'The problem in the customer’s words.',
        required: true,
      },
      {
        name: 'urgency',
        type: 'enum',
        description: 'How soon the job is needed.',
        required: true,
        options: ['emergency', 'within_48_hours', 'this_week', 'flexible'],
      },
      {
        name: 'service_address',
        type: 'string',
        description: 'Address where the work is needed.',
        required: true,
      },
      {
        name: 'is_owner',
        type: 'boolean',
        description: 'Whether the caller owns the property.',
        required: false,
      },
      { name: 'visit_datetime', type: 'datetime', description: 'Booked visit.', required: false },
    ],
  },
  {
    id: 'home_services_maintenance_plan',
    name: 'Maintenance Plan Renewal',
    description: 'Renews seasonal maintenance plans and books the next tune-up visit.',
    category: 'industry',
    industry: 'home_services',
    goal: 'Renew the customer’s maintenance plan and book their next seasonal tune-up.',
    collects: [
      {
        name: 'renewal_decision',
        type: 'enum',
        description: 'What the customer decided.',
        required: true,
        options: ['renew', 'upgrade', 'cancel', 'undecided'],
      },
      { name: 'tune_up_datetime', type: 'datetime', description: 'Booked tune-up visit.', required: false },
      {
        name: 'system_age_years',
        type: 'number',
        description: 'Age of the main system in years.',
        required: false,
      },
      {
        name: 'issues_since_last_visit',
        type: 'string',
        description: 'Problems noticed since the last visit.',
        required: false,
      },
    ],
  },
  {
    id: 'home_services_job_follow_up',
    name: 'Job Follow-up',
    description: 'Checks in after a completed job to confirm the customer is satisfied and ask for a review.',
    category: 'industry',
    industry: 'home_services',
    goal: 'Confirm the job was done right, fix anything that was not, and ask happy customers for a review.',
    collects: [
      {
        name: 'work_satisfactory',
        type: 'boolean',
        description: 'Whether the work solved the problem.',
        required: true,
      },
      { name: 'rating', type: 'number', description: 'Rating of the service from 1 to 5.', required: true },
      {
        name: 'technician_feedback',
        type: 'string',
        description: 'Comments about the technician.',
        required: false,
      },
      {
        name: 'review_link_requested',
        type: 'boolean',
        description: 'Whether to send a review link.',
        required: false,
      },
      {
        name: 'additional_work',
        type: 'string',
        description: 'Other work the customer wants quoted.',
        required: false,
      },
    ],
  },
];
