import type { AgentType } from '@voice/shared/contracts';

/** Agent types for the telecom industry. */
export const TELECOM_TYPES: readonly AgentType[] = [
  {
    id: 'telecom_plan_upgrade',
    name: 'Plan Upgrade',
    description: 'Offers existing subscribers a plan or device upgrade that better fits their usage.',
    category: 'industry',
    industry: 'telecom',
    goal: 'Match the subscriber to a plan that fits their usage and agree the upgrade.',
    collects: [
      {
        name: 'interested_in_upgrade',
        type: 'boolean',
        description: 'Whether the subscriber wants to change plan.',
        required: true,
      },
      {
        name: 'data_usage',
        type: 'enum',
        description: 'How much data they use.',
        required: false,
        options: ['light', 'moderate', 'heavy', 'unlimited'],
      },
      {
        name: 'lines_needed',
        type: 'number',
        description: 'Number of lines on the account.',
        required: false,
      },
      {
        name: 'selected_plan',
        type: 'string',
        description: 'Plan the subscriber agreed to.',
        required: false,
      },
      {
        name: 'device_upgrade_interest',
        type: 'boolean',
        description: 'Whether they want a new device.',
        required: false,
      },
    ],
  },
  {
    id: 'telecom_installation_scheduler',
    name: 'Installation Scheduler',
    description: 'Books technician installations for new broadband, TV or phone orders.',
    category: 'industry',
    industry: 'telecom',
    goal: 'Book an installation slot and confirm the technician will be able to get in and work.',
    collects: [
      {
        name: 'installation_datetime',
        type: 'datetime',
        description: 'Start of the booked installation window.',
        required: true,
      },
      {
        name: 'service_address_confirmed',
        type: 'boolean',
        description: 'Whether the customer confirmed the service address.',
        required: true,
      },
      {
        name: 'adult_present',
        type: 'boolean',
        description: 'Whether an adult (18+) will be home during the visit.',
        required: true,
      },
      {
        name: 'access_notes',
        type: 'string',
        description: 'Gate codes, parking, pets or other access notes.',
        required: false,
      },
    ],
  },
  {
    id: 'telecom_outage_follow_up',
    name: 'Outage Follow-up',
    description: 'Calls customers after a reported fault or outage to confirm service is restored.',
    category: 'industry',
    industry: 'telecom',
    goal: 'Confirm the customer’s service works again or book a technician if it does not.',
    collects: [
      {
        name: 'service_restored',
        type: 'boolean',
        description: 'Whether the service now works.',
        required: true,
      },
      {
        name: 'issue_type',
        type: 'enum',
        description: 'Remaining problem, if any.',
        required: false,
        options: ['no_connection', 'slow_speed', 'intermittent', 'no_dial_tone', 'tv_signal', 'other'],
      },
      {
        name: 'equipment_restarted',
        type: 'boolean',
        description: 'Whether the customer restarted their router or box.',
        required: false,
      },
      {
        name: 'technician_visit_datetime',
        type: 'datetime',
        description: 'Booked technician visit.',
        required: false,
      },
    ],
  },
];
