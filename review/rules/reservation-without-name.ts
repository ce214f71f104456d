import { finding, Rule } from './types';

export const reservationWithoutName: Rule = {
  id: 'reservation-without-name',
  summary: 'a TPU pool consumes a SPECIFIC_RESERVATION without naming one',
  check: ({ models }) =>
    models
      .flatMap((m) => m.tpuPools)
      .filter((p) => p.reservationType === 'SPECIFIC_RESERVATION' && p.reservations.every((v) => v.trim() === ''))
      .map((p) =>
        finding('reservation-without-name', 'error', p, `TPU pool ${p.name} consumes a SPECIFIC_RESERVATION but names no reservation`,
          'set reservation_affinity { key = "compute.googleapis.com/reservation-name", values = [RESERVATION] }, ' +
            'or use spot / flex-start (consume_reservation_type = "NO_RESERVATION")'),
      ),
};
