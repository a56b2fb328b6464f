// The mechanism panels: which component draws each view a mechanism declares (the engine's
// metadata, `MechanismInfo.views`). A view with no component here gets the generic
// MechanismPanel (the mechanism's counters at the current step and its event kinds), so a
// new mechanism shows up in the lab without any change to the web; adding a panel written
// for it is one line in PANELS. This map is the only place in web/ that names mechanisms'
// views.
import type { ReactNode } from 'react';
import type { MechanismInfo, MechanismViewInfo } from '../engine/types';
import { MechanismPanel } from './MechanismPanel';
import { PcpPanel } from './pcp/PcpPanel';
import { MremapPanel } from './mremap/MremapPanel';
import { NumaPanel } from './numa/NumaPanel';

/** What every mechanism panel is given: the mechanism and the view of it to draw (the rest it reads from the store). */
export interface MechanismPanelProps {
  mechanism: MechanismInfo;
  view: MechanismViewInfo;
}

/** A panel drawing one view of a mechanism. */
export type MechanismPanelComponent = (props: MechanismPanelProps) => ReactNode;

/**
 * View id → the panel written for it. One line per panel, e.g.
 *   numa: NumaPanel,
 * Views not listed get the generic MechanismPanel.
 */
export const PANELS: Readonly<Record<string, MechanismPanelComponent>> = {
  pcp: PcpPanel,
  mremap: MremapPanel,
  numa: NumaPanel,
};

/** The component that draws view `viewId`: the registered one, else the generic MechanismPanel. */
export function panelFor(viewId: string, panels: Readonly<Record<string, MechanismPanelComponent>> = PANELS): MechanismPanelComponent {
  return Object.hasOwn(panels, viewId) ? (panels[viewId] as MechanismPanelComponent) : MechanismPanel;
}
