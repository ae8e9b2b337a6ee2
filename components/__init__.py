"""Streamlit building blocks of the dashboard (the only place besides app.py and pages/ that uses st.).

- ``forms``: cached look-ups (regions, scenarios, providers), the sidebar, the planner form
- ``maps``: folium route map (offline Leaflet) and the st_folium call
- ``tables``: comparison / resolved points / legs / provider calls tables, best-route card,
  warnings, deep links with QR codes, downloads
- ``charts``: distance-vs-time scatter with the Pareto front
- ``static_assets``: Leaflet copied from xstatic-leaflet into ./static/leaflet (served by Streamlit)
"""
