"""Streamlit building blocks of the dashboard (the only place besides app.py and pages/ that uses st.).

One package per page: ``route`` (the route planner), ``itinerary``, ``halfday``, ``lab`` (the strategy lab),
``agent`` (the agent console). At the top, what more than one page uses: ``frame`` (layout, sidebar, cached
look-ups), ``language``, ``legacy_pages``, ``field_errors``, ``progress``, ``share`` and ``identity`` (links and who
the dashboard acts for), ``reservations`` and ``reservation_words``, ``stops_table``, ``route_words``, the maps
(``maps``, ``map_pins``, ``basemap``, and ``folium_typed``: folium's untyped pieces typed once) and ``static_assets``
(Leaflet copied from xstatic-leaflet into ./static/leaflet, served by Streamlit), and ``session`` (the type of a session
state the pure helpers take). See docs/ARCHITECTURE.md "Layout".
"""
