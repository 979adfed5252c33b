import type { AgentType } from '@voice/shared/contracts';

/** Agent types for the hospitality industry. */
export const HOSPITALITY_TYPES: readonly AgentType[] = [
  {
    id: 'hospitality_reservation_confirmation',
    name: 'Reservation Confirmation',
    description:
      'Confirms upcoming hotel or restaurant reservations and captures changes and special requests.',
    category: 'industry',
    industry: 'hospitality',
    goal: 'Confirm the guest is still coming as booked, or capture the change or cancellation.',
    collects: [
      {
        name: 'reservation_status',
        type: 'enum',
        description: 'What the guest decided.',
        required: true,
        options: ['confirmed', 'modify', 'cancel'],
      },
      {
        name: 'arrival_datetime',
        type: 'datetime',
        description: 'Expected arrival (new time if modified).',
        required: false,
      },
      { name: 'party_size', type: 'number', description: 'Number of guests.', required: false },
      {
        name: 'special_requests',
        type: 'string',
        description: 'Dietary needs, accessibility, occasions or room preferences.',
        required: false,
      },
    ],
  },
  {
    id: 'hospitality_guest_feedback',
    name: 'Guest Feedback',
    description: 'Calls guests after their stay or visit to collect feedback and recover any bad experience.',
    category: 'industry',
    industry: 'hospitality',
    goal: 'Learn how the stay went, catch unresolved problems and invite happy guests to leave a review.',
    collects: [
      {
        name: 'overall_rating',
        type: 'number',
        description: 'Overall rating from 1 (poor) to 5 (excellent).',
        required: true,
      },
      {
        name: 'would_recommend',
        type: 'boolean',
        description: 'Whether the guest would recommend the venue.',
        required: true,
      },
      { name: 'highlight', type: 'string', description: 'What the guest enjoyed most.', required: false },
      { name: 'issue_reported', type: 'string', description: 'Any problem the guest had.', required: false },
      {
        name: 'manager_callback_requested',
        type: 'boolean',
        description: 'Whether the guest wants a manager to call.',
        required: false,
      },
    ],
  },
  {
    id: 'hospitality_group_booking',
    name: 'Group & Event Sales',
    description: 'Qualifies enquiries for weddings, conferences and group stays and books a planning call.',
    category: 'industry',
    industry: 'hospitality',
    goal: 'Qualify the event’s date, size and needs so the events team can send a proposal.',
    collects: [
      {
        name: 'event_type',
        type: 'enum',
        description: 'Type of event.',
        required: true,
        options: ['wedding', 'corporate', 'conference', 'reunion', 'sports_team', 'other'],
      },
      { name: 'event_date', type: 'date', description: 'Preferred event or arrival date.', required: true },
      { name: 'guest_count', type: 'number', description: 'Expected number of guests.', required: true },
      {
        name: 'rooms_needed',
        type: 'number',
        description: 'Number of rooms needed per night.',
        required: false,
      },
      {
        name: 'catering_required',
        type: 'boolean',
        description: 'Whether food and beverage is needed.',
        required: false,
      },
      { name: 'budget', type: 'number', description: 'Total budget for the event.', required: false },
      { name: 'email', type: 'email', description: 'Email address for the proposal.', required: true },
    ],
  },
  {
    id: 'hospitality_pre_arrival_upsell',
    name: 'Pre-arrival Upsell',
    description: 'Calls guests before arrival to offer upgrades, early check-in and add-ons.',
    category: 'industry',
    industry: 'hospitality',
    goal: 'Make the guest’s stay better and increase revenue by selling one relevant upgrade or add-on.',
    collects: [
      {
        name: 'offer_accepted',
        type: 'boolean',
        description: 'Whether the guest accepted an offer.',
        required: true,
      },
      {
        name: 'selected_offer',
        type: 'enum',
        description: 'Offer the guest chose.',
        required: false,
        options: [
          'room_upgrade',
          'early_check_in',
          'late_checkout',
          'airport_transfer',
          'dining_package',
          'spa_package',
        ],
      },
      {
        name: 'special_occasion',
        type: 'enum',
        description: 'Occasion for the stay.',
        required: false,
        options: ['birthday', 'anniversary', 'honeymoon', 'business', 'none'],
      },
      {
        name: 'estimated_arrival_time',
        type: 'string',
        description: 'Time the guest expects to arrive.',
        required: false,
      },
    ],
  },
];
