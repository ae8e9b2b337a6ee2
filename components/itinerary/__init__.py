"""The itinerary page's components."""
