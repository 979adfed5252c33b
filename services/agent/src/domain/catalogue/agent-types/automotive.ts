import type { AgentType } from '@voice/shared/contracts';

/** Agent types for the automotive industry. */
export const AUTOMOTIVE_TYPES: readonly AgentType[] = [
  {
    id: 'automotive_sales_lead_follow_up',
    name: 'Sales Lead Follow-up',
    description: 'Follows up on online vehicle enquiries and books test drives at the dealership.',
    category: 'industry',
    industry: 'automotive',
    goal: 'Qualify the buyer’s vehicle interest, trade-in and financing, and book a test drive.',
    collects: [
      {
        name: 'vehicle_of_interest',
        type: 'string',
        description: 'Make, model or stock number of interest.',
        required: true,
      },
      {
        name: 'condition',
        type: 'enum',
        description: 'New or used.',
        required: false,
        options: ['new', 'used', 'certified_pre_owned'],
      },
      {
        name: 'has_trade_in',
        type: 'boolean',
        description: 'Whether the buyer has a vehicle to trade in.',
        required: true,
      },
      {
        name: 'trade_in_vehicle',
        type: 'string',
        description: 'Year, make and model of the trade-in.',
        required: false,
      },
      {
        name: 'payment_preference',
        type: 'enum',
        description: 'How the buyer plans to pay.',
        required: false,
        options: ['cash', 'finance', 'lease', 'undecided'],
      },
      { name: 'test_drive_datetime', type: 'datetime', description: 'Booked test drive.', required: false },
    ],
  },
  {
    id: 'automotive_service_reminder',
    name: 'Service Reminder',
    description: 'Reminds owners that routine maintenance is due and books a service appointment.',
    category: 'industry',
    industry: 'automotive',
    goal: 'Book the owner’s vehicle in for its due maintenance.',
    collects: [
      {
        name: 'service_type',
        type: 'enum',
        description: 'Service needed.',
        required: true,
        options: ['oil_change', 'tyre_rotation', 'brake_inspection', 'scheduled_maintenance', 'other'],
      },
      { name: 'current_mileage', type: 'number', description: 'Current odometer reading.', required: false },
      {
        name: 'appointment_datetime',
        type: 'datetime',
        description: 'Booked service appointment.',
        required: false,
      },
      {
        name: 'needs_loaner',
        type: 'boolean',
        description: 'Whether the owner needs a courtesy vehicle.',
        required: false,
      },
      {
        name: 'additional_concerns',
        type: 'string',
        description: 'Other issues the owner wants checked.',
        required: false,
      },
    ],
  },
  {
    id: 'automotive_recall_notice',
    name: 'Recall Notice',
    description: 'Notifies owners of an open safety recall on their vehicle and books the free repair.',
    category: 'industry',
    industry: 'automotive',
    goal: 'Make sure the owner knows about the safety recall and book the repair.',
    collects: [
      {
        name: 'still_owns_vehicle',
        type: 'boolean',
        description: 'Whether the person still owns the vehicle.',
        required: true,
      },
      {
        name: 'vin_last_six',
        type: 'string',
        description: 'Last six characters of the VIN, to confirm the vehicle.',
        required: false,
      },
      {
        name: 'repair_appointment_datetime',
        type: 'datetime',
        description: 'Booked recall repair.',
        required: false,
      },
      {
        name: 'mobile_service_requested',
        type: 'boolean',
        description: 'Whether the owner wants the repair done at their location.',
        required: false,
      },
    ],
  },
  {
    id: 'automotive_lease_end',
    name: 'Lease-end Outreach',
    description:
      'Contacts drivers whose lease ends soon about returning, buying out or replacing the vehicle.',
    category: 'industry',
    industry: 'automotive',
    goal: 'Learn the driver’s lease-end plan and book a consultation to choose their next vehicle.',
    collects: [
      {
        name: 'lease_end_plan',
        type: 'enum',
        description: 'What the driver plans to do.',
        required: true,
        options: ['return', 'buy_out', 'new_lease', 'trade_up', 'undecided'],
      },
      { name: 'current_mileage', type: 'number', description: 'Current odometer reading.', required: false },
      {
        name: 'vehicle_condition',
        type: 'enum',
        description: 'Driver’s view of the vehicle’s condition.',
        required: false,
        options: ['excellent', 'good', 'fair', 'poor'],
      },
      {
        name: 'consultation_datetime',
        type: 'datetime',
        description: 'Booked lease-end consultation.',
        required: false,
      },
    ],
  },
];
