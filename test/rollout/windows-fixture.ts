// The change windows the window scenarios and their validation share (docs/rollout.md#change-windows):
// a weekday window in Europe/Berlin (Mon-Thu 09:00-16:00) and a year-end freeze, as the `windows`
// block of Fleet.spec.rollout (indented for its place under `  rollout:` in fleet.yaml).

export const BERLIN_WEEKDAYS_AND_YEAR_END = `    windows:
      timeZone: Europe/Berlin
      allow:
        - name: weekdays
          days: [Mon, Tue, Wed, Thu]
          start: "09:00"
          end: "16:00"
      freeze:
        - name: year-end
          from: 2026-12-19
          to: 2027-01-06
`;
