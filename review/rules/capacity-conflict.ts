import { finding, Rule } from './types';

export const capacityConflict: Rule = {
  id: 'capacity-conflict',
  summary: 'a spot or flex-start TPU pool also consumes a reservation',
  check: ({ models }) =>
    models
      .flatMap((m) => m.tpuPools)
      .filter((p) => (p.capacity === 'spot' || p.capacity === 'flex-start') && p.reservationType && p.reservationType !== 'NO_RESERVATION')
      .map((p) =>
        finding('capacity-conflict', 'error', p, `TPU pool ${p.name} is ${p.capacity} but reservation_affinity is ${p.reservationType}`,
          'set consume_reservation_type = "NO_RESERVATION" for spot or flex-start'),
      ),
};
