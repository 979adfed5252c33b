import type { AgentType } from '@voice/shared/contracts';

/** Agent types for the healthcare industry. */
export const HEALTHCARE_TYPES: readonly AgentType[] = [
  {
    id: 'healthcare_appointment_reminder',
    name: 'Appointment Reminder',
    description:
      'Reminds patients of upcoming appointments and confirms, reschedules or cancels them to reduce no-shows.',
    category: 'industry',
    industry: 'healthcare',
    goal: 'Confirm the patient will attend their appointment, or reschedule or cancel it so the slot can be reused.',
    collects: [
      {
        name: 'identity_verified',
        type: 'boolean',
        description: 'Whether the patient confirmed their identity before details were shared.',
        required: true,
      },
      {
        name: 'attendance',
        type: 'enum',
        description: 'What the patient decided.',
        required: true,
        options: ['confirmed', 'reschedule', 'cancel'],
      },
      {
        name: 'new_appointment_datetime',
        type: 'datetime',
        description: 'New time if the appointment was rescheduled.',
        required: false,
      },
      {
        name: 'cancellation_reason',
        type: 'string',
        description: 'Reason given for cancelling.',
        required: false,
      },
      {
        name: 'transport_needed',
        type: 'boolean',
        description: 'Whether the patient needs help with transport.',
        required: false,
      },
    ],
  },
  {
    id: 'healthcare_patient_intake',
    name: 'Patient Intake',
    description:
      'Collects registration and medical history details from new patients before their first visit.',
    category: 'industry',
    industry: 'healthcare',
    goal: 'Complete the patient’s pre-visit registration so the clinic has what it needs before they arrive.',
    collects: [
      { name: 'date_of_birth', type: 'date', description: 'Patient’s date of birth.', required: true },
      {
        name: 'reason_for_visit',
        type: 'string',
        description: 'Main reason for the visit, in the patient’s words.',
        required: true,
      },
      {
        name: 'insurance_provider',
        type: 'string',
        description: 'Name of the patient’s health insurer.',
        required: false,
      },
      {
        name: 'insurance_member_id',
        type: 'string',
        description: 'Member ID on the insurance card.',
        required: false,
      },
      {
        name: 'current_medications',
        type: 'string',
        description: 'Medications the patient currently takes.',
        required: false,
      },
      { name: 'allergies', type: 'string', description: 'Known allergies, or “none”.', required: true },
    ],
  },
  {
    id: 'healthcare_prescription_refill',
    name: 'Prescription Refill',
    description:
      'Reminds patients that a prescription is due for refill and arranges the refill with their pharmacy.',
    category: 'industry',
    industry: 'healthcare',
    goal: 'Make sure the patient does not run out of their medication by arranging a timely refill.',
    collects: [
      { name: 'medication_name', type: 'string', description: 'Medication due for refill.', required: true },
      {
        name: 'refill_requested',
        type: 'boolean',
        description: 'Whether the patient wants the refill.',
        required: true,
      },
      {
        name: 'pharmacy',
        type: 'string',
        description: 'Pharmacy to send the prescription to.',
        required: false,
      },
      {
        name: 'fulfilment_method',
        type: 'enum',
        description: 'How the patient wants to receive it.',
        required: false,
        options: ['pickup', 'delivery', 'mail_order'],
      },
      {
        name: 'side_effects_reported',
        type: 'string',
        description: 'Side effects the patient mentioned, for the care team.',
        required: false,
      },
    ],
  },
  {
    id: 'healthcare_post_visit_follow_up',
    name: 'Post-visit Follow-up',
    description:
      'Checks in with patients after a procedure or discharge and flags anyone who needs a clinician.',
    category: 'industry',
    industry: 'healthcare',
    goal: 'Check how the patient is recovering and route anyone with worrying symptoms to a clinician.',
    collects: [
      {
        name: 'symptom_severity',
        type: 'enum',
        description: 'How the patient rates their symptoms.',
        required: true,
        options: ['none', 'mild', 'moderate', 'severe'],
      },
      {
        name: 'pain_level',
        type: 'number',
        description: 'Pain from 0 (none) to 10 (worst imaginable).',
        required: false,
      },
      {
        name: 'taking_medication_as_prescribed',
        type: 'boolean',
        description: 'Whether the patient follows the medication plan.',
        required: false,
      },
      {
        name: 'clinician_callback_needed',
        type: 'boolean',
        description: 'Whether a clinician should call the patient back.',
        required: true,
      },
      {
        name: 'follow_up_appointment_datetime',
        type: 'datetime',
        description: 'Follow-up visit booked during the call.',
        required: false,
      },
    ],
  },
];
