"""The words layer (issue 30): domain codes and facts turned into sentences through the catalogs (core.i18n.t), in
one ``Lang``. One module per job: ``route`` (the route page's and report's tables and summaries), ``route_export``
(the HTML/JSON/CSV report), ``itinerary`` (why a place was dropped, its smallest fix, a rule broken, opening hours),
``halfday`` (the half-day planner's intro, reasons, warnings and stage log), ``agent`` (the agent's booking replies
and its lines for an itinerary's dropped places).

It sits above the planning domains (route, itinerary, reservations, memory, venues: they return codes and facts and
cannot import it) and below the agent, the lab and the half-day planner, whose replies are words (docs/ARCHITECTURE.md,
"Language")."""
