"""Every offline map makes Leaflet's default marker an empty HTML icon before any marker is added, so no map asks for
Leaflet's marker image (which st_folium's frame looks for at a wrong path: a 404 in the browser)."""

from __future__ import annotations

import folium

from components.maps import offline_map


def test_the_default_marker_image_is_replaced_before_any_marker():
    m = offline_map([31.23, 121.47])
    folium.Marker([31.23, 121.47], icon=folium.DivIcon(html="<b>1</b>")).add_to(m)
    html = m.get_root().render()
    no_image = html.index("L.Marker.prototype.options.icon = L.divIcon(")
    assert no_image < html.index("L.marker(")
    assert "marker-icon.png" not in html
