-- The telephony service owns this schema: SIP trunks, their numbers, and the calls each trunk carries.
-- No other service reads or writes these tables; they reach this data over the bus.
COMMENT ON SCHEMA telephony IS 'Owned by the telephony service: SIP trunks and the calls they carry.';
