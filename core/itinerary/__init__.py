"""The multi-day itinerary optimiser: problem, layout, OR-Tools model, drop reasons, critic, ICS (docs/ARCHITECTURE.md)."""
